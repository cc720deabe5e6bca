"""On PostgreSQL a process hears the events other processes store (``pg_listen.py``):
each event write notifies the ids of its jobs when it commits, and the listener wakes
those jobs' streams here; while it listens, quiet streams look at the database less
often. A listener whose connection the server dropped says so (streams look every second
again) and listens again."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime

import psycopg

from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import StageStarted
from deepresearch.service.db import make_engine, migrate
from deepresearch.service.notify import HEARD_POLL_S, POLL_S, Notifier
from deepresearch.service.pg_listen import EventListener
from deepresearch.service.store import JobStore
from deepresearch.sqldb import libpq_url

from .helpers import queue_job
from .postgres import PostgresServer


def _event(job_id: str) -> RunEvent:
    return RunEvent(
        run_id=job_id, ts=datetime.now(UTC), type="stage_started", stage="plan", data=StageStarted()
    )


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 20
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


def _drop_listener(url: str) -> None:
    with psycopg.connect(libpq_url(url), autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND query LIKE 'LISTEN%%'"
        )


def test_events_another_process_stores_wake_this_process_s_streams(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    engine = make_engine(url)  # "the other process": a store of its own
    migrate(engine)
    store = JobStore(engine)
    job_id, quiet_id = queue_job(store).job.id, queue_job(store, "another").job.id

    async def scenario() -> None:
        notifier = Notifier()
        listener = EventListener(url, notifier.publish_all)
        notifier.hearing = lambda: listener.listening
        assert notifier.poll_s() == POLL_S
        listener.start()
        try:
            await _until(lambda: listener.listening, "the listener never listened")
            assert notifier.poll_s() == HEARD_POLL_S

            seen = notifier.version(job_id)
            await asyncio.to_thread(store.append_events, [(job_id, _event(job_id))])
            await notifier.wait(job_id, seen, 20)
            assert notifier.version(job_id) != seen, "no news of the stored event"
            assert notifier.version(quiet_id) == 0  # only the jobs written are named

            # one batch of many jobs' events: every job is named (several notifications)
            many = [queue_job(store, f"job {n}").job.id for n in range(300)]
            await asyncio.to_thread(store.append_events, [(i, _event(i)) for i in many])
            await _until(
                lambda: all(notifier.version(i) for i in many), "a job of the batch unnamed"
            )

            # the server drops the listener's connection: it says so, then listens again
            await asyncio.to_thread(_drop_listener, url)
            await _until(lambda: not listener.listening, "the lost connection went unnoticed")
            assert notifier.poll_s() == POLL_S
            await _until(lambda: listener.listening, "the listener did not listen again")
            seen = notifier.version(job_id)
            await asyncio.to_thread(store.append_events, [(job_id, _event(job_id))])
            await notifier.wait(job_id, seen, 20)
            assert notifier.version(job_id) != seen, "no news after listening again"
        finally:
            await asyncio.to_thread(listener.stop)

    try:
        asyncio.run(scenario())
    finally:
        engine.dispose()
