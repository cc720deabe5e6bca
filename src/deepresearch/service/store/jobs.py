"""Reading jobs: one (its owner's only), an owner's list page by page, an owner's counts
per status."""

from __future__ import annotations

from collections.abc import Collection
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

    def queue_counts(self, owner: str | None = None) -> dict[str, int]:
        """The owner's jobs per status, every status named (None: every owner's, for
        operators and tests; the API asks for the caller's only)."""
        query = select(t.research_jobs.c.status, func.count())
        if owner is not None:
            query = query.where(t.research_jobs.c.owner == owner)
        with self._read() as conn:
            rows = conn.execute(query.group_by(t.research_jobs.c.status)).all()
        counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        counts.update({str(status): int(n) for status, n in rows})
        return counts

    def count_owned(self, owner: str, job_ids: Collection[str]) -> int:
        """How many of ``job_ids`` are the owner's."""
        if not job_ids:
            return 0
        query = select(func.count()).where(
            t.research_jobs.c.owner == owner, t.research_jobs.c.id.in_(list(job_ids))
        )
        with self._read() as conn:
            return int(conn.execute(query).scalar_one())
