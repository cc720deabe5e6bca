"""A worker keeps its jobs' leases while its process is busy: the renewals do not wait
behind the run's own blocking work (page extraction, the response cache, store calls) in
the event loop's default thread pool, so a busy worker's job is not taken over by another
worker. A real worker pool runs a real job (only the model's words are scripted) on
SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Connection, Engine
from sqlalchemy.pool import QueuePool

from deepresearch.service.app.jobs import Runtime, worker_pool
from deepresearch.service.db import make_engine, open_database
from deepresearch.service.notify import Notifier
from deepresearch.service.store import JobStore
from deepresearch.service.worker import WorkerPool
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import queue_job, service_settings

LEASE_S = 2.0
QUESTION = "Are Christopher Nolan and Sathish Kalathil both film directors?"


async def _until(condition: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while not condition():
        assert loop.time() < deadline, f"timed out waiting until {what}"
        await asyncio.sleep(0.05)


async def test_a_saturated_default_thread_pool_does_not_starve_lease_renewals(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url, job_lease_s=LEASE_S)
    engine = open_database(settings)
    store = JobStore(engine)
    model = ScriptedChatModel(research_script(), latency_s=0.3)
    pool = worker_pool(
        store, settings, Notifier(), Runtime(models=dict.fromkeys(ROLES, model)), poll_s=0.1
    )
    job = queue_job(store, QUESTION, options={"depth": "quick"}).job
    loop = asyncio.get_running_loop()
    gate = threading.Event()
    blockers: list[asyncio.Future[bool]] = []
    try:
        await pool.start()
        await _until(lambda: job.id in pool.running_ids, "the job runs")
        # every thread of the default pool blocks (more calls than it has threads queue
        # behind them), as when the run's own blocking work keeps it busy
        blockers = [loop.run_in_executor(None, gate.wait) for _ in range(64)]
        await asyncio.sleep(3 * LEASE_S)  # well past the lease taken when it was claimed
        held = store.get(job.id)
        assert held is not None and held.status == "RUNNING", held
        assert held.lease_owner == pool.worker_id
        # another worker finds nothing to take over: the lease was renewed meanwhile
        assert store.claim("another-worker", LEASE_S) is None
    finally:
        gate.set()
        await asyncio.gather(*blockers)
    try:
        await _until(lambda: job.id not in pool.running_ids, "the job ends")
        done = store.get(job.id)
        assert done is not None and done.status == "COMPLETED", done
        assert done.attempts == 1  # never taken over, never resumed
    finally:
        await pool.stop()
        engine.dispose()


async def _running_job(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> tuple[Engine, JobStore, WorkerPool, str]:
    """A real pool (started) running one real job; the pool's engine is ``store.engine``."""
    settings = service_settings(service_web, tmp_path, database_url, job_lease_s=LEASE_S)
    engine = open_database(settings)
    store = JobStore(engine)
    model = ScriptedChatModel(research_script(), latency_s=0.3)
    pool = worker_pool(
        store, settings, Notifier(), Runtime(models=dict.fromkeys(ROLES, model)), poll_s=0.1
    )
    job = queue_job(store, QUESTION, options={"depth": "quick"}).job
    await pool.start()
    await _until(lambda: job.id in pool.running_ids, "the job runs")
    return engine, store, pool, job.id


async def _ends_once(store: JobStore, pool: WorkerPool, job_id: str) -> None:
    await _until(lambda: job_id not in pool.running_ids, "the job ends")
    done = store.get(job_id)
    assert done is not None and done.status == "COMPLETED", done
    assert done.attempts == 1  # never taken over, never resumed


async def test_a_blocked_event_loop_does_not_starve_lease_renewals(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    """A run that holds the event loop (CPU-bound work done inline) past the lease: the
    renewals do not wait for the loop."""
    engine, store, pool, job_id = await _running_job(service_web, database_url, tmp_path)
    other = JobStore(make_engine(str(engine.url.render_as_string(hide_password=False))))
    try:
        time.sleep(3 * LEASE_S)  # noqa: ASYNC251 (the point: the loop is held)
        held = store.get(job_id)
        assert held is not None and held.status == "RUNNING", held
        assert held.lease_owner == pool.worker_id
        assert other.claim("another-worker", LEASE_S) is None
        await _ends_once(store, pool, job_id)
    finally:
        await pool.stop()
        other.engine.dispose()
        engine.dispose()


async def test_a_drained_connection_pool_does_not_starve_lease_renewals(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    """Every connection of the engine the pool's store calls draw from is taken (event
    streams, store calls of the default thread pool) past the lease: the renewals have a
    connection of their own."""
    engine, store, pool, job_id = await _running_job(service_web, database_url, tmp_path)
    other = JobStore(make_engine(str(engine.url.render_as_string(hide_password=False))))
    taken: list[Connection] = []
    try:
        queue = engine.pool
        assert isinstance(queue, QueuePool)
        while len(taken) < queue.size() + queue._max_overflow:
            taken.append(engine.connect())
        await asyncio.sleep(3 * LEASE_S)
        assert other.claim("another-worker", LEASE_S) is None
    finally:
        for conn in taken:
            conn.close()
    try:
        await _ends_once(store, pool, job_id)
    finally:
        await pool.stop()
        other.engine.dispose()
        engine.dispose()
