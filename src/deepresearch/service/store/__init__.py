"""Every query the service makes. Synchronous SQLAlchemy Core; the async parts of the
service call it from worker threads or, for short writes, inline.

``JobStore`` is one object made of the parts, one module each, sharing the engine, the
clock and the transaction helpers of ``base.py``:

- ``keys.py``: API keys (stored hashed);
- ``submissions.py``: submitting, with Idempotency-Key replays, attaching to the owner's
  active run and the rate limit;
- ``jobs.py``: reading jobs;
- ``leases.py``: claims, leases, cancelling, finishing and expiry;
- ``events.py``: appending events (folded into the job's row) and reading them back;
- ``results.py``: a finished job's document, sources and evidence;
- ``inputs.py``: jobs waiting for a person's answer (issue 15), and the answers;
- ``retention.py``: forgetting jobs that ended long ago (``deepresearch gc``);
- ``watches.py``: watches (issue 25), their due times claimed and their change reports;
- ``deliveries.py``: the webhook outbox, its deliveries claimed, retried and finished;
- ``views.py``: what GET of one job shows, in one read (its thread from the job rows).

Writes that read-then-write (submissions, claims) are serialised: SQLite transactions
start with ``BEGIN IMMEDIATE``; PostgreSQL takes a per-owner advisory lock for
submissions and ``FOR UPDATE SKIP LOCKED`` for claims."""

from __future__ import annotations

from deepresearch.service.store.base import Clock, StoreBase, utcnow
from deepresearch.service.store.deliveries import Delivery, DeliveryQueries
from deepresearch.service.store.events import EventQueries, StoredEvent
from deepresearch.service.store.inputs import Answered, InputQueries
from deepresearch.service.store.jobs import JobQueries
from deepresearch.service.store.keys import ApiKey, KeyQueries, hash_token
from deepresearch.service.store.leases import LeaseQueries
from deepresearch.service.store.results import ResultQueries
from deepresearch.service.store.retention import RetentionQueries
from deepresearch.service.store.submissions import (
    IdempotencyInFlight,
    IdempotencyMismatch,
    Limits,
    StoreError,
    SubmissionQueries,
    SubmissionRateLimited,
)
from deepresearch.service.store.views import JobParts, ViewQueries
from deepresearch.service.store.watches import WatchLimitReached, WatchQueries, WatchRun


class JobStore(
    KeyQueries,
    SubmissionQueries,
    JobQueries,
    LeaseQueries,
    EventQueries,
    ResultQueries,
    InputQueries,
    RetentionQueries,
    WatchQueries,
    DeliveryQueries,
    ViewQueries,
):
    """The service's store: ``JobStore(engine, clock)``; see the module docstring."""


__all__ = [
    "Answered",
    "ApiKey",
    "Clock",
    "Delivery",
    "IdempotencyInFlight",
    "IdempotencyMismatch",
    "JobParts",
    "JobStore",
    "Limits",
    "StoreBase",
    "StoreError",
    "StoredEvent",
    "SubmissionRateLimited",
    "WatchLimitReached",
    "WatchRun",
    "hash_token",
    "utcnow",
]
