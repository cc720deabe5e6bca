"""A job's events: stored with the job's next sequence number, folded into the job's row
(stage, progress, counts, usage; each model call also a usage row), and read back after a
sequence number (the event stream's resume point)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, insert, select, text, update

from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import ModelCalled
from deepresearch.models.events import Payload
from deepresearch.service import tables as t
from deepresearch.service.jobs import (
    Job,
    count_updates,
    place_of,
    progress_after,
    stage_after,
    usage_updates,
)
from deepresearch.service.store.base import StoreBase, aware, get_job, place_values

#: the PostgreSQL channel event writes notify (payload: job ids, comma-separated), which
#: every process's ``pg_listen.EventListener`` hears
CHANNEL = "deepresearch_events"
#: job ids in one notification: 120 of at most 64 characters and a comma fit PostgreSQL's
#: 8000 bytes of payload
IDS_PER_NOTIFY = 120


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    event: RunEvent


class EventQueries(StoreBase):
    def append_event(self, job_id: str, run_event: RunEvent) -> int:
        """Store one event; its sequence number."""
        return self.append_events([(job_id, run_event)])[0]

    def append_events(self, items: Sequence[tuple[str, RunEvent]]) -> list[int]:
        """Store runs' events in one transaction, each with its job's next sequence number,
        in the order given; fold them into each job's stage, progress, counts and usage."""
        seqs: list[int] = []
        with self._write() as conn:
            next_seq: dict[str, int] = {}
            jobs: dict[str, dict[str, Any]] = {}
            events: list[dict[str, Any]] = []
            usage_rows: list[dict[str, Any]] = []
            # each job's row locked, in one order (two writers never deadlock), before
            # its next number is taken: a concurrent writer of the job's events waits
            for job_id in sorted({job_id for job_id, _ in items}):
                job = get_job(conn, job_id, lock=True)
                if job is None:
                    raise KeyError(job_id)
                next_seq[job_id] = last_seq(conn, job_id) + 1
                jobs[job_id] = {
                    "stage": job.stage,
                    "progress": job.progress,
                    "counts": dict(job.counts),
                    "usage": dict(job.usage),
                }
            for job_id, run_event in items:
                seq = next_seq[job_id]
                next_seq[job_id] = seq + 1
                seqs.append(seq)
                events.append(_event_row(job_id, seq, run_event))
                _fold(jobs[job_id], run_event)
                if isinstance(run_event.data, ModelCalled):
                    usage_rows.append(_usage_row(job_id, seq, run_event.stage, run_event.data))
            if events:
                conn.execute(insert(t.job_events), events)
                notify_jobs(conn, jobs)
            if usage_rows:
                conn.execute(insert(t.research_usage), usage_rows)
            now = self.clock()
            for job_id, values in jobs.items():
                conn.execute(
                    update(t.research_jobs)
                    .where(t.research_jobs.c.id == job_id)
                    .values(updated_at=now, **values)
                )
        return seqs

    def last_event_seq(self, job_id: str) -> int:
        """The id of the job's latest stored event; 0 before its first."""
        with self._read() as conn:
            return last_seq(conn, job_id)

    def events_after(self, job_id: str, after: int, limit: int = 500) -> list[StoredEvent]:
        with self._read() as conn:
            return self._events_after(conn, job_id, after, limit)

    def news(self, job_id: str, after: int) -> tuple[list[StoredEvent], Job | None]:
        """The job's events after ``after``; when there are none, the job as it is now:
        what a quiet event stream asks about once a second, in one connection."""
        with self._read() as conn:
            events = self._events_after(conn, job_id, after, 500)
            return (events, None) if events else ([], get_job(conn, job_id))

    def _events_after(
        self, conn: Connection, job_id: str, after: int, limit: int
    ) -> list[StoredEvent]:
        rows = conn.execute(
            select(t.job_events)
            .where(t.job_events.c.job_id == job_id, t.job_events.c.seq > after)
            .order_by(t.job_events.c.seq)
            .limit(limit)
        ).all()
        return [
            StoredEvent(
                row.seq,
                RunEvent(
                    run_id=job_id,
                    seq=row.seq,
                    ts=aware(row.ts) or self.clock(),
                    type=row.type,
                    stage=row.stage,
                    message=row.message,
                    data=row.data,
                ),
            )
            for row in rows
        ]


def last_seq(conn: Connection, job_id: str) -> int:
    last = conn.execute(
        select(func.max(t.job_events.c.seq)).where(t.job_events.c.job_id == job_id)
    ).scalar_one()
    return int(last or 0)


def append_row(conn: Connection, job_id: str, data: Payload, message: str, ts: datetime) -> int:
    """Store one event the store itself writes (cancelled, a terminal event) inside the
    caller's transaction; its sequence number. Its payload is typed like a run's events."""
    seq = last_seq(conn, job_id) + 1
    event = RunEvent(
        run_id=job_id, seq=seq, ts=ts, type=data.event_type, message=message, data=data
    )
    conn.execute(insert(t.job_events).values(_event_row(job_id, seq, event)))
    notify_jobs(conn, [job_id])
    return seq


def notify_jobs(conn: Connection, job_ids: Iterable[str]) -> None:
    """PostgreSQL: tell every listening process (``pg_listen.py``) that these jobs have
    new events, delivered when the caller's transaction commits; SQLite: nothing (its
    streams look every second)."""
    if conn.dialect.name != "postgresql":
        return
    ids = sorted(job_ids)
    # a payload is at most 8000 bytes: a batch's ids (64 characters at most, and a comma)
    # in as many notifications as it takes
    for start in range(0, len(ids), IDS_PER_NOTIFY):
        chunk = ",".join(ids[start : start + IDS_PER_NOTIFY])
        conn.execute(text("SELECT pg_notify(:channel, :ids)"), {"channel": CHANNEL, "ids": chunk})


def _event_row(job_id: str, seq: int, run_event: RunEvent) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "seq": seq,
        "ts": run_event.ts,
        "type": run_event.type,
        "stage": run_event.stage,
        "message": run_event.message,
        "data": run_event.data.model_dump(mode="json"),
    }


def _fold(job: dict[str, Any], run_event: RunEvent) -> None:
    """What an event changes in its job's row: stage, progress, counts, usage, and a
    follow-up's place in its thread."""
    job["stage"] = stage_after(run_event.type, run_event.stage, job["stage"])
    job["progress"] = progress_after(
        run_event.type, run_event.stage, run_event.data, job["progress"]
    )
    for key, n in count_updates(run_event.data).items():
        job["counts"][key] = job["counts"].get(key, 0) + n
    for key, n in usage_updates(run_event.data).items():
        job["usage"][key] = job["usage"].get(key, 0) + n
    place = place_of(run_event.data)
    if place is not None:
        job.update(place_values(place))


def _usage_row(job_id: str, seq: int, stage: str | None, call: ModelCalled) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "seq": seq,
        "stage": stage,
        "role": call.role,
        "model": call.model,
        "input_tokens": call.input_tokens,
        "output_tokens": call.output_tokens,
        "cached": False,  # a reply from the response cache makes no model_call event
    }
