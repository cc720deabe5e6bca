"""Events are stored off the event loop, in order, and a flush waits for them; a stream's
wake-up is never lost between its read and its wait."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import ModelCalled
from deepresearch.service.db import make_engine, migrate
from deepresearch.service.jobs import request_hash
from deepresearch.service.notify import Notifier
from deepresearch.service.store import JobStore, Limits
from deepresearch.service.writer import EventWriter

CALL = ModelCalled(
    role="planner",
    model="m",
    input_tokens=1,
    output_tokens=0,
    latency_s=0.1,
    ok=True,
    attempts=1,
    usage_source="reported",
)


def _store(database_url: str) -> JobStore:
    engine = make_engine(database_url)
    migrate(engine)
    return JobStore(engine)


def _job(store: JobStore, question: str) -> str:
    return store.submit(
        owner="o",
        question=question,
        recipe="research",
        options={},
        request_hash=request_hash(question, "research", {}),
        idempotency_key=None,
        max_active_runs=10,
        limits=Limits(900, 100, 3600),
    ).job.id


async def test_the_writer_stores_in_order_and_flush_waits(database_url: str) -> None:
    store = _store(database_url)
    jobs = [_job(store, "a"), _job(store, "b")]
    stored: list[set[str]] = []
    writer = EventWriter(store, stored.append)
    try:
        for n in range(300):
            job_id = jobs[n % 2]
            writer.put(
                job_id,
                RunEvent(
                    run_id=job_id,
                    ts=datetime.now(UTC),
                    type="model_call",
                    message=str(n),
                    data=CALL,
                ),
            )
        await writer.flush()
        for index, job_id in enumerate(jobs):
            events = store.events_after(job_id, 0)
            assert [e.seq for e in events] == list(range(1, 151))
            assert [int(e.event.message) for e in events] == list(range(index, 300, 2))
            job = store.get(job_id)
            assert job is not None and job.usage["calls"] == 150 == job.counts["model_calls"]
        assert set().union(*stored) == set(jobs)
    finally:
        writer.close()
        store.engine.dispose()


async def test_a_publish_between_read_and_wait_is_not_missed() -> None:
    notifier = Notifier()
    seen = notifier.version("job")
    notifier.publish("job")  # lands after the stream's read, before its wait
    started = time.monotonic()
    await notifier.wait("job", seen, timeout_s=5)
    assert time.monotonic() - started < 1

    seen = notifier.version("job")
    waiter = asyncio.create_task(notifier.wait("job", seen, timeout_s=5))
    await asyncio.sleep(0.05)
    notifier.publish("job")
    await asyncio.wait_for(waiter, 1)
