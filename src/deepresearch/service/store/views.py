"""What ``GET`` of one job shows, read in one connection: the job (the caller's only),
what it asks while it waits, its evaluation once it completed, and its thread: the first
run and its follow-ups, each a job of the caller's, from the thread columns its events
and report fill (``events._fold``, ``results.save_result``): no checkpoint is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, or_, select

from deepresearch.models.pause import InputRequest
from deepresearch.service import tables as t
from deepresearch.service.jobs import Job
from deepresearch.service.store.base import StoreBase, get_job
from deepresearch.service.store.inputs import pending_of


@dataclass(frozen=True)
class ThreadTurn:
    """One run of a job's thread, as GET of a job lists it."""

    run_id: str
    turn: int
    question: str
    follows: str | None
    topic_shift: bool


@dataclass(frozen=True)
class JobParts:
    job: Job
    input_request: InputRequest | None = None
    evaluation: dict[str, Any] | None = None
    #: the thread of a completed job of ``threaded`` recipes; None for the others
    thread: list[ThreadTurn] | None = None


class ViewQueries(StoreBase):
    def job_parts(
        self, job_id: str, owner: str, *, threaded: frozenset[str] = frozenset()
    ) -> JobParts | None:
        """Owner ``owner``'s job ``job_id`` with what GET of it adds; None when it is not
        theirs (or does not exist). ``threaded``: recipes whose runs have threads."""
        with self._read() as conn:
            job = get_job(conn, job_id)
            if job is None or job.owner != owner:
                return None
            if job.status == "AWAITING_INPUT":
                return JobParts(job, input_request=pending_of(conn, job.id))
            if job.status != "COMPLETED":
                return JobParts(job)
            thread = thread_of(conn, job) if job.recipe in threaded else None
            return JobParts(job, evaluation=evaluation_of(conn, job.id), thread=thread)


def thread_of(conn: Connection, job: Job) -> list[ThreadTurn]:
    """Every run of ``job``'s thread that is a job of its owner, first to last: the first
    run, then its follow-ups by turn."""
    jobs = t.research_jobs.c
    root = job.place.root if job.place else job.id
    rows = conn.execute(
        select(jobs.id, jobs.question, jobs.turn, jobs.follows, jobs.topic_shift)
        .where(or_(jobs.id == root, jobs.thread_root == root), jobs.owner == job.owner)
        .order_by(func.coalesce(jobs.turn, 1), jobs.id)
    ).all()
    return [
        ThreadTurn(
            run_id=row.id,
            turn=1 if row.id == root else int(row.turn),
            question=row.question,
            follows=None if row.id == root else row.follows,
            topic_shift=False if row.id == root else bool(row.topic_shift),
        )
        for row in rows
        if row.id == root or row.turn is not None
    ]


def evaluation_of(conn: Connection, job_id: str) -> dict[str, Any] | None:
    """The job's evaluation: the latest one asked for, else the one its run made
    (``evaluate``, in the stored report), else None."""
    row = conn.execute(
        select(t.research_evals.c.evaluation).where(t.research_evals.c.job_id == job_id)
    ).first()
    if row is not None:
        return dict(row.evaluation)
    # only the report's evaluation, read inside the database: the whole stored report
    # (tens of kB of JSON) was parsed on every GET of a finished job
    found = conn.execute(
        select(t.research_results.c.report["evaluation"]).where(
            t.research_results.c.job_id == job_id
        )
    ).scalar()
    return dict(found) if isinstance(found, dict) else None


__all__ = ["JobParts", "ThreadTurn", "ViewQueries", "evaluation_of", "thread_of"]
