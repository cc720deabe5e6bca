"""Jobs that wait for a person (issue 15): a job whose run asked something becomes
AWAITING_INPUT and gives up its lease (it holds no worker slot); the question is kept in
``job_inputs``. An answer is stored with its fingerprint and queues the job again, where a
worker resumes the run with it. A second identical answer is harmless; a different one is
refused. Answers are rate limited per owner like submissions."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from sqlalchemy import Connection, and_, insert, select, update

from deepresearch.models.event_payloads import RunCancelled
from deepresearch.models.pause import InputRequest
from deepresearch.service import tables as t
from deepresearch.service.jobs import Job
from deepresearch.service.store.base import StoreBase, aware, get_job
from deepresearch.service.store.events import append_row
from deepresearch.service.store.submissions import Limits, SubmissionRateLimited


def reply_hash(reply: Any) -> str:
    """The fingerprint of a checked answer, to tell a repeated answer from another."""
    body = json.dumps(reply, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()


@dataclass(frozen=True)
class Answered:
    """What ``answer`` did: ``accepted`` the answer (the job is queued again),
    ``repeated`` one already given, or found a ``conflict`` (another answer was given, or
    the job waits for nothing)."""

    outcome: Literal["accepted", "repeated", "conflict"]
    job: Job | None
    reason: str = ""


class InputQueries(StoreBase):
    def await_input(
        self, job_id: str, worker: str, request: InputRequest, timeout_s: float
    ) -> bool:
        """The worker's run asked ``request``: the job waits for an answer (no lease) until
        ``timeout_s`` from now. False when the worker had lost the job."""
        now = self.clock()
        with self._write() as conn:
            job = get_job(conn, job_id, lock=True)
            if job is not None and job.cancel_requested and job.lease_owner == worker:
                # cancelled as it paused: it ends here rather than wait for nobody
                conn.execute(
                    update(t.research_jobs)
                    .where(t.research_jobs.c.id == job_id)
                    .values(
                        status="CANCELLED",
                        lease_owner=None,
                        lease_expires_at=None,
                        finished_at=now,
                        updated_at=now,
                    )
                )
                append_row(conn, job_id, RunCancelled(), "Cancelled", now)
                return True
            result = conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == job_id, t.research_jobs.c.lease_owner == worker)
                .values(
                    status="AWAITING_INPUT",
                    lease_owner=None,
                    lease_expires_at=None,
                    expires_at=now + timedelta(seconds=timeout_s),
                    updated_at=now,
                )
            )
            if not result.rowcount:
                return False
            known = conn.execute(
                select(t.job_inputs.c.request_id).where(
                    t.job_inputs.c.job_id == job_id, t.job_inputs.c.request_id == request.id
                )
            ).first()
            if known is None:
                conn.execute(
                    insert(t.job_inputs).values(
                        job_id=job_id,
                        request_id=request.id,
                        kind=request.kind,
                        request=request.model_dump(mode="json"),
                        created_at=now,
                    )
                )
        return True

    def pending_input(self, job_id: str) -> InputRequest | None:
        """What a job AWAITING_INPUT asks; None for any other job."""
        with self._read() as conn:
            return _pending(conn, job_id)

    def last_answer(self, job_id: str) -> tuple[str, Any] | None:
        """The latest answer given to the job (request id, checked answer), for the worker
        that resumes it."""
        with self._read() as conn:
            row = conn.execute(
                select(t.job_inputs.c.request_id, t.job_inputs.c.reply)
                .where(t.job_inputs.c.job_id == job_id, t.job_inputs.c.answered_at.is_not(None))
                .order_by(t.job_inputs.c.answered_at.desc())
                .limit(1)
            ).first()
        return (row.request_id, row.reply) if row is not None else None

    def answer(
        self, job_id: str, owner: str, request_id: str, reply: Any, limits: Limits
    ) -> Answered:
        """Store the answer to request ``request_id`` and queue the job again, in one
        transaction (so two answers racing cannot both win)."""
        fingerprint = reply_hash(reply)
        now = self.clock()
        with self._write() as conn:
            job = get_job(conn, job_id, lock=True)
            if job is None or job.owner != owner:
                return Answered("conflict", None, "no such job")
            row = conn.execute(
                select(t.job_inputs).where(
                    t.job_inputs.c.job_id == job_id, t.job_inputs.c.request_id == request_id
                )
            ).first()
            if row is None:
                return Answered("conflict", job, f"the job is {job.status}; it asks nothing")
            if row.answered_at is not None:
                if row.reply_hash == fingerprint:
                    return Answered("repeated", job)
                return Answered(
                    "conflict", job, "this question was already answered, with another answer"
                )
            if job.status != "AWAITING_INPUT":
                return Answered("conflict", job, f"the job is {job.status}; it asks nothing")
            self._check_answer_rate(conn, owner, limits)
            conn.execute(
                update(t.job_inputs)
                .where(t.job_inputs.c.job_id == job_id, t.job_inputs.c.request_id == request_id)
                .values(reply=reply, reply_hash=fingerprint, answered_at=now)
            )
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == job_id)
                .values(
                    status="QUEUED",
                    expires_at=now + timedelta(seconds=limits.ttl_s),
                    updated_at=now,
                )
            )
            return Answered("accepted", get_job(conn, job_id))

    def last_request(self, job_id: str) -> InputRequest | None:
        """The job's latest pause, answered or not."""
        with self._read() as conn:
            row = conn.execute(
                select(t.job_inputs.c.request)
                .where(t.job_inputs.c.job_id == job_id)
                .order_by(t.job_inputs.c.created_at.desc())
                .limit(1)
            ).first()
        return InputRequest.model_validate(row.request) if row is not None else None

    def _check_answer_rate(self, conn: Connection, owner: str, limits: Limits) -> None:
        since = self.clock() - timedelta(seconds=limits.window_s)
        recent = conn.execute(
            select(t.job_inputs.c.answered_at)
            .select_from(
                t.job_inputs.join(t.research_jobs, t.research_jobs.c.id == t.job_inputs.c.job_id)
            )
            .where(and_(t.research_jobs.c.owner == owner, t.job_inputs.c.answered_at > since))
            .order_by(t.job_inputs.c.answered_at)
        ).all()
        if len(recent) >= limits.per_window:
            oldest = aware(recent[-limits.per_window][0])
            assert oldest is not None
            raise SubmissionRateLimited(max(1.0, (oldest - since).total_seconds()))


def _pending(conn: Connection, job_id: str) -> InputRequest | None:
    row = conn.execute(
        select(t.job_inputs.c.request)
        .select_from(
            t.job_inputs.join(t.research_jobs, t.research_jobs.c.id == t.job_inputs.c.job_id)
        )
        .where(
            t.job_inputs.c.job_id == job_id,
            t.job_inputs.c.answered_at.is_(None),
            t.research_jobs.c.status == "AWAITING_INPUT",
        )
        .order_by(t.job_inputs.c.created_at.desc())
        .limit(1)
    ).first()
    return InputRequest.model_validate(row.request) if row is not None else None


__all__ = ["Answered", "InputQueries", "reply_hash"]
