"""The store's side of jobs that wait for a person, on SQLite and PostgreSQL: waiting
gives the lease back, an answer queues the job again once, answers are rate limited per
owner, a cancel that arrived while the run was pausing ends the job, and a job that waits
too long expires with a clear error."""

from __future__ import annotations

import pytest

from deepresearch.models.pause import InputRequest
from deepresearch.service.store import JobStore, Limits, SubmissionRateLimited

from .test_store import LIMITS, FakeClock, clock, engine, store, submit  # noqa: F401

ASK = InputRequest(run_id="x", id="pause-1", kind="clarification", question="Which one?")


def _waiting(store: JobStore) -> str:  # noqa: F811
    job_id = submit(store).job.id
    claimed = store.claim("w1", 30)
    assert claimed is not None and claimed.id == job_id
    assert store.await_input(job_id, "w1", ASK.model_copy(update={"run_id": job_id}), 60)
    return str(job_id)


def test_waiting_holds_no_lease_and_one_answer_queues_it(store: JobStore) -> None:  # noqa: F811
    job_id = _waiting(store)
    job = store.get(job_id)
    assert job is not None and job.status == "AWAITING_INPUT" and job.lease_owner is None
    assert not store.has_claimable() and store.claim("w2", 30) is None
    assert store.pending_input(job_id) is not None
    assert store.answer(job_id, job.owner, "pause-1", "the first", LIMITS).outcome == "accepted"
    assert store.answer(job_id, job.owner, "pause-1", "the first", LIMITS).outcome == "repeated"
    other = store.answer(job_id, job.owner, "pause-1", "another", LIMITS)
    assert other.outcome == "conflict" and "already answered" in other.reason
    assert store.answer(job_id, "someone-else", "pause-1", "the first", LIMITS).job is None
    assert store.pending_input(job_id) is None
    assert store.last_answer(job_id) == ("pause-1", "the first")
    claimed = store.claim("w2", 30)
    assert claimed is not None and claimed.id == job_id and claimed.attempts == 2


def test_answers_are_rate_limited_per_owner(store: JobStore) -> None:  # noqa: F811
    tight = Limits(window_s=900, per_window=1, ttl_s=3600)
    first = _waiting(store)
    owner = store.get(first).owner  # type: ignore[union-attr]
    assert store.answer(first, owner, "pause-1", "a", tight).outcome == "accepted"
    store.claim("w1", 30)
    second_job = submit(store, "another").job
    claimed = store.claim("w1", 30)
    assert claimed is not None and claimed.id == second_job.id
    store.await_input(second_job.id, "w1", ASK, 60)
    with pytest.raises(SubmissionRateLimited):
        store.answer(second_job.id, owner, "pause-1", "b", tight)
    assert store.get(second_job.id).status == "AWAITING_INPUT"  # type: ignore[union-attr]


def test_a_cancel_while_pausing_ends_the_job(store: JobStore) -> None:  # noqa: F811
    job_id = submit(store).job.id
    store.claim("w1", 30)
    owner = store.get(job_id).owner  # type: ignore[union-attr]
    store.request_cancel(job_id, owner)  # running: a flag the worker would see
    assert store.await_input(job_id, "w1", ASK, 60)
    assert store.get(job_id).status == "CANCELLED"  # type: ignore[union-attr]
    assert store.events_after(job_id, 0)[-1].event.type == "run_cancelled"


def test_a_job_waiting_too_long_expires(store: JobStore, clock: FakeClock) -> None:  # noqa: F811
    job_id = _waiting(store)
    clock.advance(59)
    store.expire()
    assert store.get(job_id).status == "AWAITING_INPUT"  # type: ignore[union-attr]
    clock.advance(2)
    assert store.expire() == 1
    job = store.get(job_id)
    assert job is not None and job.status == "EXPIRED" and "no answer came" in (job.error or "")
    assert store.events_after(job_id, 0)[-1].event.type == "run_expired"
    owner = job.owner
    assert store.answer(job_id, owner, "pause-1", "late", LIMITS).outcome == "conflict"
