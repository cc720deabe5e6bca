"""What ``GET`` of one job shows, read in one connection: the job (the caller's only),
what it asks while it waits, its evaluation once it completed, and its thread: the first
run and its follow-ups, each a job of the caller's, from the thread columns its events
and report fill (``events._fold``, ``results.save_result``): no checkpoint is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, ColumnElement, Connection, Select, case, func, or_, select

from deepresearch.models.pause import InputRequest
from deepresearch.models.thread import Turn
from deepresearch.service import tables as t
from deepresearch.service.jobs import Job
from deepresearch.service.store.base import StoreBase, job_from_row


@dataclass(frozen=True)
class JobParts:
    job: Job
    input_request: InputRequest | None = None
    evaluation: dict[str, Any] | None = None
    #: the thread of a completed job of ``threaded`` recipes; None for the others
    thread: list[Turn] | None = None


class ViewQueries(StoreBase):
    def job_parts(
        self, job_id: str, owner: str, *, threaded: frozenset[str] = frozenset()
    ) -> JobParts | None:
        """Owner ``owner``'s job ``job_id`` with what GET of it adds; None when it is not
        theirs (or does not exist). ``threaded``: recipes whose runs have threads. One
        statement reads the job, what it asks and its evaluation, a second its thread:
        under load each round trip to the database waits its turn for a core."""
        with self._read() as conn:
            row = conn.execute(_WITH_PARTS.where(t.research_jobs.c.id == job_id)).first()
            if row is None or row.owner != owner:
                return None
            job = job_from_row(row)
            asked = row.asked
            evaluation = row.evaluation  # None unless COMPLETED (the statement's CASE)
            thread = None
            if job.status == "COMPLETED" and job.recipe in threaded:
                thread = thread_of(conn, job)
        return JobParts(
            job,
            input_request=InputRequest.model_validate(asked) if asked is not None else None,
            evaluation=dict(evaluation) if isinstance(evaluation, dict) else None,
            thread=thread,
        )


def _evaluation() -> ColumnElement[Any]:
    """A job's evaluation: the latest one asked for, else the one its run made, read out
    of the stored report inside the database (the whole report's JSON is not sent)."""
    jobs = t.research_jobs.c
    return func.coalesce(
        select(t.research_evals.c.evaluation)
        .where(t.research_evals.c.job_id == jobs.id)
        .scalar_subquery(),
        select(t.research_results.c.report["evaluation"])
        .where(t.research_results.c.job_id == jobs.id)
        .scalar_subquery(),
        type_=JSON,
    )


def _parts() -> Select[Any]:
    """A job's row with what it asks (while AWAITING_INPUT: the latest unanswered
    request) and its evaluation (once COMPLETED); ``CASE`` and ``COALESCE`` leave the
    subqueries a job does not need unread."""
    jobs, inputs = t.research_jobs.c, t.job_inputs.c
    asked = (
        select(inputs.request)
        .where(inputs.job_id == jobs.id, inputs.answered_at.is_(None))
        .order_by(inputs.created_at.desc())
        .limit(1)
        .scalar_subquery()
    )
    return select(
        t.research_jobs,
        case((jobs.status == "AWAITING_INPUT", asked), else_=None).label("asked"),
        case((jobs.status == "COMPLETED", _evaluation()), else_=None).label("evaluation"),
    )


_WITH_PARTS = _parts()


def thread_of(conn: Connection, job: Job) -> list[Turn]:
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
        Turn(
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
    query = select(_evaluation().label("evaluation")).where(t.research_jobs.c.id == job_id)
    found = conn.execute(query).scalar()
    return dict(found) if isinstance(found, dict) else None


__all__ = ["JobParts", "ViewQueries", "evaluation_of", "thread_of"]
