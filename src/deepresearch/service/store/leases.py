"""Running jobs: claiming the oldest queued job (or one whose worker's lease lapsed),
renewing and releasing the lease, cancelling, finishing with the terminal event in the same
transaction, and expiring jobs past their time-to-live. PostgreSQL claims with
``FOR UPDATE SKIP LOCKED``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select, update

from deepresearch.models.event_payloads import RunCancelled, RunCompleted, RunFailed
from deepresearch.models.events import Payload
from deepresearch.service import tables as t
from deepresearch.service.jobs import TERMINAL, Job, JobStatus
from deepresearch.service.store.base import StoreBase, get_job
from deepresearch.service.store.events import append_row
from deepresearch.service.store.results import delete_results


class LeaseQueries(StoreBase):
    def _claimable(self) -> Any:
        now = self.clock()
        return or_(
            t.research_jobs.c.status == "QUEUED",
            and_(
                t.research_jobs.c.status == "RUNNING",
                t.research_jobs.c.lease_expires_at < now,
            ),
        )

    def has_claimable(self) -> bool:
        """Whether ``claim`` would find a job (a read, without taking the write lock)."""
        with self._read() as conn:
            row = conn.execute(
                select(t.research_jobs.c.id).where(self._claimable()).limit(1)
            ).first()
        return row is not None

    def claim(self, worker: str, lease_s: float) -> Job | None:
        """Take the oldest queued job, or a running one whose lease has lapsed (its
        worker died), and lease it to ``worker``."""
        now = self.clock()
        with self._write() as conn:
            row = conn.execute(
                select(t.research_jobs.c.id)
                .where(self._claimable())
                .order_by(t.research_jobs.c.created_at, t.research_jobs.c.id)
                .limit(1)
                .with_for_update(skip_locked=True)
            ).first()
            if row is None:
                return None
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == row.id)
                .values(
                    status="RUNNING",
                    lease_owner=worker,
                    lease_expires_at=now + timedelta(seconds=lease_s),
                    attempts=t.research_jobs.c.attempts + 1,
                    started_at=func.coalesce(t.research_jobs.c.started_at, now),
                    updated_at=now,
                )
            )
            return get_job(conn, row.id)

    def renew(self, job_id: str, worker: str, lease_s: float) -> Job | None:
        """Extend the lease; None when ``worker`` no longer holds it."""
        now = self.clock()
        with self._write() as conn:
            result = conn.execute(
                update(t.research_jobs)
                .where(
                    t.research_jobs.c.id == job_id,
                    t.research_jobs.c.lease_owner == worker,
                    t.research_jobs.c.status == "RUNNING",
                )
                .values(lease_expires_at=now + timedelta(seconds=lease_s), updated_at=now)
            )
            if not result.rowcount:
                return None
            return get_job(conn, job_id)

    def release(self, job_id: str, worker: str) -> None:
        """Give a running job back to the queue (shutdown): the next worker resumes it."""
        with self._write() as conn:
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == job_id, t.research_jobs.c.lease_owner == worker)
                .values(
                    status="QUEUED",
                    lease_owner=None,
                    lease_expires_at=None,
                    updated_at=self.clock(),
                )
            )

    def request_cancel(self, job_id: str, owner: str) -> Job | None:
        """Flag a job for cancellation; a queued one is cancelled at once."""
        now = self.clock()
        with self._write() as conn:
            job = get_job(conn, job_id)
            if job is None or job.owner != owner:
                return None
            if job.status == "QUEUED":
                conn.execute(
                    update(t.research_jobs)
                    .where(t.research_jobs.c.id == job_id)
                    .values(
                        status="CANCELLED",
                        cancel_requested=True,
                        finished_at=now,
                        updated_at=now,
                    )
                )
                append_row(conn, job_id, RunCancelled(), "Cancelled before it started", now)
            elif job.status == "RUNNING":
                conn.execute(
                    update(t.research_jobs)
                    .where(t.research_jobs.c.id == job_id)
                    .values(cancel_requested=True, updated_at=now)
                )
            return get_job(conn, job_id)

    def finish(
        self,
        job_id: str,
        worker: str,
        status: JobStatus,
        *,
        message: str,
        error: str | None = None,
        ttl_s: float,
        completed: RunCompleted | None = None,
    ) -> bool:
        """Move a job this worker holds to a terminal state and store the terminal event
        in the same transaction. False when the worker had lost the job. A completed job's
        event is its run's ``completed`` (its counts); a failed one's carries ``error``."""
        assert status in TERMINAL
        terminal = _terminal(status, error, completed)
        now = self.clock()
        with self._write() as conn:
            result = conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == job_id, t.research_jobs.c.lease_owner == worker)
                .values(
                    status=status,
                    error=error,
                    finished_at=now,
                    expires_at=now + timedelta(seconds=ttl_s),
                    lease_owner=None,
                    lease_expires_at=None,
                    updated_at=now,
                    progress=1.0 if status == "COMPLETED" else t.research_jobs.c.progress,
                )
            )
            if not result.rowcount:
                return False
            append_row(conn, job_id, terminal, message, now)
        return True

    def expire(self) -> int:
        """Jobs past their time-to-live become EXPIRED and their results are deleted."""
        now = self.clock()
        with self._write() as conn:
            ids = [
                row.id
                for row in conn.execute(
                    select(t.research_jobs.c.id).where(
                        t.research_jobs.c.expires_at < now,
                        t.research_jobs.c.status.in_(
                            ("COMPLETED", "FAILED", "CANCELLED", "QUEUED")
                        ),
                    )
                ).all()
            ]
            if not ids:
                return 0
            delete_results(conn, ids)
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id.in_(ids))
                .values(status="EXPIRED", updated_at=now)
            )
        return len(ids)


def _terminal(status: JobStatus, error: str | None, completed: RunCompleted | None) -> Payload:
    """The payload of a job's terminal event (``jobs.TERMINAL_EVENT``'s type)."""
    if status == "COMPLETED":
        if completed is None:
            raise ValueError("a completed job's terminal event needs its run's counts")
        return completed
    if status == "FAILED":
        return RunFailed(error=error or "the run failed")
    return RunCancelled()
