"""The store's plumbing, shared by every part of it: the engine, the clock, transactions
that read then write without losing a race (SQLite ``BEGIN IMMEDIATE``), and a job row
read back as a ``Job``."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Row, select

from deepresearch.service import tables as t
from deepresearch.service.jobs import Job, ThreadPlace
from deepresearch.sqldb import Clock, Transactions, aware, utcnow

__all__ = [
    "Clock",
    "StoreBase",
    "aware",
    "get_job",
    "job_from_row",
    "place_values",
    "utcnow",
]


class StoreBase(Transactions):
    """The engine and clock every part of ``JobStore`` queries through."""


def get_job(conn: Connection, job_id: str, *, lock: bool = False) -> Job | None:
    """The job's row; ``lock``: held until the transaction ends (``FOR UPDATE``), for a
    write that decides on what it read. SQLite's write transactions hold the whole
    database already; on PostgreSQL a second writer (a claim, a cancel, an event writer)
    waits, so two never decide on one state, and one job's event numbers are taken and
    committed in order."""
    query = select(t.research_jobs).where(t.research_jobs.c.id == job_id)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return job_from_row(row) if row else None


def job_from_row(row: Row[Any]) -> Job:
    m = row._mapping
    return Job(
        id=m["id"],
        owner=m["owner"],
        status=m["status"],
        stage=m["stage"],
        progress=float(m["progress"]),
        question=m["question"],
        recipe=m["recipe"],
        options=dict(m["options"] or {}),
        idempotency_key=m["idempotency_key"],
        request_hash=m["request_hash"],
        created_at=aware(m["created_at"]) or utcnow(),
        started_at=aware(m["started_at"]),
        finished_at=aware(m["finished_at"]),
        expires_at=aware(m["expires_at"]),
        updated_at=aware(m["updated_at"]) or utcnow(),
        attempts=int(m["attempts"]),
        lease_owner=m["lease_owner"],
        lease_expires_at=aware(m["lease_expires_at"]),
        cancel_requested=bool(m["cancel_requested"]),
        error=m["error"],
        counts=dict(m["counts"] or {}),
        usage=dict(m["usage"] or {}),
        place=place_from_row(m),
    )


def place_from_row(m: Any) -> ThreadPlace | None:
    if m["thread_root"] is None:
        return None
    return ThreadPlace(
        root=m["thread_root"],
        turn=int(m["turn"]),
        follows=m["follows"],
        topic_shift=bool(m["topic_shift"]),
    )


def place_values(place: ThreadPlace) -> dict[str, Any]:
    """``place`` as the job row's columns."""
    return {
        "thread_root": place.root,
        "turn": place.turn,
        "follows": place.follows,
        "topic_shift": place.topic_shift,
    }
