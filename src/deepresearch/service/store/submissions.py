"""Submitting a job: an Idempotency-Key replay, attaching to the owner's active run, the
per-owner rate limit, then a new queued job. Serialised per owner: SQLite transactions
start with ``BEGIN IMMEDIATE``, PostgreSQL takes a per-owner advisory lock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, insert, select, text
from sqlalchemy.exc import IntegrityError

from deepresearch.core.ids import new_run_id
from deepresearch.service import tables as t
from deepresearch.service.jobs import ACTIVE, Job, Submission
from deepresearch.service.store.base import StoreBase, aware, get_job, job_from_row
from deepresearch.settings_groups import ServiceSettings


class StoreError(Exception):
    """A submission the store refuses; the routes map each subclass to a status code."""


class IdempotencyMismatch(StoreError):
    """The Idempotency-Key was used before with a different body (422)."""


class IdempotencyInFlight(StoreError):
    """The first request with this Idempotency-Key is still being created (409)."""


class SubmissionRateLimited(StoreError):
    def __init__(self, retry_after_s: float) -> None:
        super().__init__("too many submissions")
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class Limits:
    window_s: float
    per_window: int
    ttl_s: float

    @classmethod
    def of(cls, service: ServiceSettings) -> Limits:
        """The service's limits on a key's job creations."""
        return cls(
            window_s=service.submission_window_s,
            per_window=service.submissions_per_window,
            ttl_s=service.job_ttl_s,
        )


def insert_job(
    conn: Connection,
    *,
    owner: str,
    question: str,
    recipe: str,
    options: dict[str, Any],
    request_hash: str,
    idempotency_key: str | None,
    now: datetime,
    ttl_s: float,
) -> Job:
    """A new queued job in ``conn``'s transaction (a submission's, or a due watch's)."""
    job_id = new_run_id()
    conn.execute(
        insert(t.research_jobs).values(
            id=job_id,
            owner=owner,
            status="QUEUED",
            progress=0.0,
            question=question,
            recipe=recipe,
            options=options,
            idempotency_key=idempotency_key,
            request_hash=request_hash,
            created_at=now,
            updated_at=now,
            expires_at=now + timedelta(seconds=ttl_s),
            attempts=0,
            cancel_requested=False,
            counts={},
            usage={},
        )
    )
    job = get_job(conn, job_id)
    assert job is not None
    return job


class SubmissionQueries(StoreBase):
    def submit(
        self,
        *,
        owner: str,
        question: str,
        recipe: str,
        options: dict[str, Any],
        request_hash: str,
        idempotency_key: str | None,
        max_active_runs: int,
        limits: Limits,
    ) -> Submission:
        """Create a job, or return the job this request already made or should attach to.

        Order: an Idempotency-Key replay first (never rate limited), then attaching to
        the owner's active run when they have as many as they may, then the rate limit."""
        try:
            with self._write() as conn:
                self._lock_owner(conn, owner)
                if idempotency_key:
                    existing = self._by_idempotency_key(conn, owner, idempotency_key)
                    if existing is not None:
                        if existing.request_hash != request_hash:
                            raise IdempotencyMismatch()
                        return Submission(existing, replayed=True)
                active = self._active_jobs(conn, owner)
                if len(active) >= max_active_runs:
                    return Submission(active[0], attached=True)
                self._check_rate(conn, owner, limits)
                job = insert_job(
                    conn,
                    owner=owner,
                    question=question,
                    recipe=recipe,
                    options=options,
                    request_hash=request_hash,
                    idempotency_key=idempotency_key,
                    now=self.clock(),
                    ttl_s=limits.ttl_s,
                )
                return Submission(job, created=True)
        except IntegrityError:
            # another request with the same Idempotency-Key won the race
            with self._read() as conn:
                existing = self._by_idempotency_key(conn, owner, str(idempotency_key))
            if existing is None:
                raise IdempotencyInFlight() from None
            if existing.request_hash != request_hash:
                raise IdempotencyMismatch() from None
            return Submission(existing, replayed=True)

    def _lock_owner(self, conn: Connection, owner: str) -> None:
        lock_owner(conn, owner)

    def _by_idempotency_key(self, conn: Connection, owner: str, key: str) -> Job | None:
        row = conn.execute(
            select(t.research_jobs).where(
                t.research_jobs.c.owner == owner, t.research_jobs.c.idempotency_key == key
            )
        ).first()
        return job_from_row(row) if row else None

    def _active_jobs(self, conn: Connection, owner: str) -> list[Job]:
        rows = conn.execute(
            select(t.research_jobs)
            .where(t.research_jobs.c.owner == owner, t.research_jobs.c.status.in_(ACTIVE))
            .order_by(t.research_jobs.c.created_at.desc())
        ).all()
        return [job_from_row(row) for row in rows]

    def _check_rate(self, conn: Connection, owner: str, limits: Limits) -> None:
        wait = rate_wait(conn, owner, limits, self.clock())
        if wait is not None:
            raise SubmissionRateLimited(wait)


def lock_owner(conn: Connection, owner: str) -> None:
    """Serialize the owner's job creations to the transaction's end (PostgreSQL; SQLite's
    write transactions hold the whole database), so two never pass one rate check."""
    if conn.dialect.name != "sqlite":
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:owner))"), {"owner": owner})


def rate_wait(conn: Connection, owner: str, limits: Limits, now: datetime) -> float | None:
    """Seconds until the owner may have another job created (its jobs of the window are
    as many as ``limits`` lets it have); None when it may now. Every job counts: a
    submission's, a follow-up's and a due watch's."""
    since = now - timedelta(seconds=limits.window_s)
    recent = conn.execute(
        select(t.research_jobs.c.created_at)
        .where(t.research_jobs.c.owner == owner, t.research_jobs.c.created_at > since)
        .order_by(t.research_jobs.c.created_at)
    ).all()
    if len(recent) < limits.per_window:
        return None
    oldest = aware(recent[-limits.per_window][0])
    assert oldest is not None
    return max(1.0, (oldest - since).total_seconds())
