"""Reading jobs: one (its owner's only), an owner's list page by page, counts per status."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select

from deepresearch.service import tables as t
from deepresearch.service.jobs import STATUSES, Job
from deepresearch.service.store.base import StoreBase, get_job, job_from_row


class JobQueries(StoreBase):
    def get(self, job_id: str, owner: str | None = None) -> Job | None:
        with self._read() as conn:
            job = get_job(conn, job_id)
        if job is None or (owner is not None and job.owner != owner):
            return None
        return job

    def list_jobs(
        self, owner: str, *, limit: int = 20, before: datetime | None = None
    ) -> list[Job]:
        """The owner's jobs, newest first; ``before`` pages on from a created_at."""
        query = select(t.research_jobs).where(t.research_jobs.c.owner == owner)
        if before is not None:
            query = query.where(t.research_jobs.c.created_at < before)
        query = query.order_by(t.research_jobs.c.created_at.desc(), t.research_jobs.c.id.desc())
        with self._read() as conn:
            rows = conn.execute(query.limit(limit)).all()
        return [job_from_row(row) for row in rows]

    def queue_counts(self) -> dict[str, int]:
        with self._read() as conn:
            rows = conn.execute(
                select(t.research_jobs.c.status, func.count()).group_by(t.research_jobs.c.status)
            ).all()
        counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        counts.update({str(status): int(n) for status, n in rows})
        return counts
