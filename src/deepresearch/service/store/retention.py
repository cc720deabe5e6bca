"""Forgetting finished jobs (``deepresearch gc``, the service's periodic pass): a job that
ended (completed, failed, cancelled, expired) before a cut-off goes with its events,
results, usage, evaluations and answers (their rows cascade). Jobs that are queued,
running or waiting for a person are never touched."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select

from deepresearch.service import tables as t
from deepresearch.service.store.base import StoreBase

#: the states a job never leaves
ENDED = ("COMPLETED", "FAILED", "CANCELLED", "EXPIRED")


class RetentionQueries(StoreBase):
    def forgettable(self, before: datetime) -> tuple[list[str], int]:
        """Jobs that ended before ``before`` and how many events they hold."""
        jobs = t.research_jobs.c
        ended = func.coalesce(jobs.finished_at, jobs.updated_at)
        with self._read() as conn:
            ids = [
                str(row.id)
                for row in conn.execute(
                    select(jobs.id).where(jobs.status.in_(ENDED), ended < before)
                )
            ]
            events = (
                conn.execute(
                    select(func.count())
                    .select_from(t.job_events)
                    .where(t.job_events.c.job_id.in_(ids))
                ).scalar_one()
                if ids
                else 0
            )
        return ids, int(events)

    def forget(self, job_ids: list[str]) -> int:
        """Delete ``job_ids`` (ended ones only, checked again) and all they hold; how many
        were deleted."""
        jobs = t.research_jobs.c
        deleted = 0
        for start in range(0, len(job_ids), 500):  # bounded statements
            chunk = job_ids[start : start + 500]
            with self._write() as conn:
                result = conn.execute(
                    delete(t.research_jobs).where(jobs.id.in_(chunk), jobs.status.in_(ENDED))
                )
                deleted += result.rowcount or 0
        return deleted
