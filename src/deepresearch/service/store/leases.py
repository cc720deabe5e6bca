"""Running jobs: claiming the oldest queued job (or one whose worker's lease lapsed, or
one an earlier life of the claiming worker held: ``worker_identity``), renewing and
releasing the lease, cancelling, finishing with the terminal event in the same
transaction, and expiring jobs past their time-to-live. PostgreSQL claims with
``FOR UPDATE SKIP LOCKED``."""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, case, func, or_, select, update

from deepresearch.models.event_pauses import RunExpired
from deepresearch.models.event_payloads import RunCancelled, RunCompleted, RunFailed
from deepresearch.models.events import Payload
from deepresearch.service import tables as t
from deepresearch.service.jobs import TERMINAL, Job, JobStatus
from deepresearch.service.store.base import StoreBase, get_job
from deepresearch.service.store.events import append_row
from deepresearch.service.store.results import delete_results

#: a lease keeper's look at one job: (still held by the worker, cancel requested)
LeaseState = tuple[bool, bool]


def _earlier_life(worker: str, earlier: str | None) -> Any:
    """Running jobs leased by an earlier life of this worker (``earlier``: the prefix of
    every worker id that life and this one share), not by this life itself."""
    if earlier is None:
        return None
    jobs = t.research_jobs.c
    return and_(
        jobs.status == "RUNNING",
        jobs.lease_owner.startswith(earlier, autoescape=True),
        jobs.lease_owner != worker,
    )


class LeaseQueries(StoreBase):
    def _claimable(self, worker: str = "", earlier: str | None = None) -> Any:
        now = self.clock()
        lapsed = and_(
            t.research_jobs.c.status == "RUNNING",
            t.research_jobs.c.lease_expires_at < now,
        )
        own = _earlier_life(worker, earlier)
        if own is None:
            return or_(t.research_jobs.c.status == "QUEUED", lapsed)
        return or_(t.research_jobs.c.status == "QUEUED", lapsed, own)

    def has_claimable(self, worker: str = "", earlier: str | None = None) -> bool:
        """Whether ``claim`` would find a job (a read, without taking the write lock)."""
        with self._read() as conn:
            row = conn.execute(
                select(t.research_jobs.c.id).where(self._claimable(worker, earlier)).limit(1)
            ).first()
        return row is not None

    def claim(self, worker: str, lease_s: float, *, earlier: str | None = None) -> Job | None:
        """Lease a job to ``worker``: first one an earlier life of it held (``earlier``:
        the prefix its ids share, see ``service.identity``; that life is over, so its jobs
        are resumed at once rather than after their lease), then the oldest queued one or
        a running one whose lease has lapsed (its worker died)."""
        now = self.clock()
        own = _earlier_life(worker, earlier)
        order: list[Any] = [t.research_jobs.c.created_at, t.research_jobs.c.id]
        if own is not None:
            order.insert(0, case((own, 0), else_=1))
        with self._write() as conn:
            row = conn.execute(
                select(t.research_jobs.c.id)
                .where(self._claimable(worker, earlier))
                .order_by(*order)
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

    def keep_leases(
        self, job_ids: Collection[str], worker: str, lease_s: float | None
    ) -> dict[str, LeaseState]:
        """The lease keeper's one round for every job ``worker`` runs: extend their leases
        (``lease_s``; None: only look) and say, per job, whether the worker still holds it
        and whether a cancel was asked."""
        if not job_ids:
            return {}
        jobs = t.research_jobs.c
        if lease_s is not None:
            # one short transaction a job: a statement over several rows would lock them
            # in an order of its own against the event writer's (a deadlock on PostgreSQL)
            for job_id in sorted(job_ids):
                now = self.clock()
                with self._write() as conn:
                    conn.execute(
                        update(t.research_jobs)
                        .where(
                            jobs.id == job_id, jobs.lease_owner == worker, jobs.status == "RUNNING"
                        )
                        .values(lease_expires_at=now + timedelta(seconds=lease_s), updated_at=now)
                    )
        with self._read() as conn:
            rows = conn.execute(
                select(jobs.id, jobs.lease_owner, jobs.status, jobs.cancel_requested).where(
                    jobs.id.in_(job_ids)
                )
            ).all()
        found = {
            row.id: (
                row.lease_owner == worker and row.status == "RUNNING",
                bool(row.cancel_requested),
            )
            for row in rows
        }
        return {job_id: found.get(job_id, (False, False)) for job_id in job_ids}

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
            job = get_job(conn, job_id, lock=True)
            if job is None or job.owner != owner:
                return None
            if job.status in ("QUEUED", "AWAITING_INPUT"):  # no worker runs it: at once
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
                message = (
                    "Cancelled before it started"
                    if job.status == "QUEUED"
                    else "Cancelled while waiting for input"
                )
                append_row(conn, job_id, RunCancelled(), message, now)
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
        """Jobs past their time-to-live become EXPIRED and their results are deleted; a
        job that waited for a person's answer past ``input_timeout_s`` too, saying so
        (its error, and a ``run_expired`` event that ends its stream)."""
        now = self.clock()
        with self._write() as conn:
            waited = [
                row.id
                for row in conn.execute(
                    select(t.research_jobs.c.id).where(
                        t.research_jobs.c.expires_at < now,
                        t.research_jobs.c.status == "AWAITING_INPUT",
                    )
                ).all()
            ]
            message = "Expired: no answer came within the time a job waits for input"
            for job_id in waited:
                conn.execute(
                    update(t.research_jobs)
                    .where(t.research_jobs.c.id == job_id)
                    .values(
                        status="EXPIRED",
                        error=message + " (input_timeout_s)",
                        finished_at=now,
                        expires_at=now,
                        updated_at=now,
                    )
                )
                append_row(conn, job_id, RunExpired(), message, now)
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
                return len(waited)
            delete_results(conn, ids)
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id.in_(ids))
                .values(status="EXPIRED", updated_at=now)
            )
        return len(ids) + len(waited)


def _terminal(status: JobStatus, error: str | None, completed: RunCompleted | None) -> Payload:
    """The payload of a job's terminal event (``jobs.TERMINAL_EVENT``'s type)."""
    if status == "COMPLETED":
        if completed is None:
            raise ValueError("a completed job's terminal event needs its run's counts")
        return completed
    if status == "FAILED":
        return RunFailed(error=error or "the run failed")
    return RunCancelled()
