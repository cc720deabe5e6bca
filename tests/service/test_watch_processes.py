"""Watches with many machines on one PostgreSQL (issue 25): two ``serve --no-workers``
processes and three ``deepresearch worker`` processes all run the watch scheduler; two
watches fall due every few seconds; one worker is killed with SIGKILL while it runs a
watch's job. Each due time queued exactly one job, every job completed once, and every
due time's change report was written once."""

from __future__ import annotations

import json
import os
import signal
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from deepresearch.service.db import make_engine
from deepresearch.service.store import JobStore
from deepresearch.service.tables import research_jobs, watch_deliveries, watch_runs

from ..cli.chat_server import ChatServer, chat_server  # noqa: F401 (fixture)
from ..cli.conftest import cli_corpus, web_process  # noqa: F401 (fixtures)
from .postgres import PostgresServer
from .processes import Process, launch, wait_ready
from .test_many_processes import _completed_events, _leases, _questions
from .webhook_receiver import signed, webhook_receiver

pytestmark = pytest.mark.serial

EVERY_S = 4
WATCHES = 2
RUN_FOR_S = 14
LEASE_S = 6


def _runs(database_url: str) -> list[Any]:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return list(
                conn.execute(
                    select(
                        watch_runs.c.watch_id,
                        watch_runs.c.due_at,
                        watch_runs.c.job_id,
                        watch_runs.c.status,
                        watch_runs.c.summary,
                    )
                ).all()
            )
    finally:
        engine.dispose()


def _deliveries(database_url: str) -> list[Any]:
    """Each webhook delivery's status, attempts and the job whose report it carries."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return list(
                conn.execute(
                    select(
                        watch_deliveries.c.status, watch_deliveries.c.attempts, watch_runs.c.job_id
                    ).join(
                        watch_runs,
                        (watch_runs.c.watch_id == watch_deliveries.c.watch_id)
                        & (watch_runs.c.due_at == watch_deliveries.c.due_at),
                    )
                ).all()
            )
    finally:
        engine.dispose()


def _watch_jobs(database_url: str) -> dict[str, int]:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(research_jobs.c.idempotency_key, func.count())
                .where(research_jobs.c.idempotency_key.like("watch:%"))
                .group_by(research_jobs.c.idempotency_key)
            ).all()
    finally:
        engine.dispose()
    return {str(key): int(count) for key, count in rows}


@pytest.mark.slow
def test_watches_run_once_across_two_apis_three_workers_and_a_kill_9(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    postgres_server: PostgresServer,
    tmp_path: Path,
) -> None:
    database_url = postgres_server.new_database()
    chat_server.latency_s = 0.15
    where: dict[str, Any] = {"web": web_process, "chat": chat_server, "database_url": database_url}
    env = {
        "DEEPRESEARCH_WATCH_TICK_S": "0.2",
        "DEEPRESEARCH_JOB_LEASE_S": str(LEASE_S),
        # every due time is meant to run here: a watch's job counts against the key's
        # submission rate limit (test_watch_rate_limit.py), whose default would defer some
        "DEEPRESEARCH_SUBMISSIONS_PER_WINDOW": "1000",
    }
    processes: list[Process] = []
    hooks = ExitStack()
    receiver = hooks.enter_context(webhook_receiver())
    try:
        apis = [
            launch("serve", tmp_path / f"api{i}", **where, args=("--no-workers",), env=env)
            for i in range(2)
        ]
        workers = [
            launch("worker", tmp_path / f"worker{i}", **where, args=("--concurrency", "2"), env=env)
            for i in range(3)
        ]
        processes += apis + workers
        for process in processes:
            wait_ready(process)
        # the schedule is below the API's minimum interval: written to the store directly
        store = JobStore(make_engine(database_url))
        added = [
            store.add_watch(
                owner="local",
                question=question,
                schedule=f"every {EVERY_S}s",
                options={"depth": "quick"},
                first_due=datetime.now(UTC),
                thread=None,
                max_watches=10,
                webhook_url=receiver.url,
            )
            for question in _questions()[:WATCHES]
        ]
        # kill -9 a worker while it runs a watch's job
        victim = workers[0]
        deadline = time.monotonic() + 120
        while not any(owner == victim.ready for owner in _leases(database_url).values()):
            assert time.monotonic() < deadline, "the first worker never ran a watch's job"
            time.sleep(0.1)
        os.kill(victim.pid, signal.SIGKILL)
        victim.popen.wait(timeout=10)
        held = [j for j, owner in _leases(database_url).items() if owner == victim.ready]
        assert held, "the first worker finished its job before it was killed"
        time.sleep(RUN_FOR_S)  # due times go on meanwhile
        with httpx.Client(base_url=apis[0].ready, timeout=30) as client:
            for watch in client.get("/v1/watches").json():
                assert client.post(f"/v1/watches/{watch['id']}/pause").status_code == 200
        # every queued job ends and every report is written (the killed worker's lease lapses)
        deadline = time.monotonic() + 300
        while True:
            runs = _runs(database_url)
            if runs and all(run.status == "reported" for run in runs):
                break
            assert time.monotonic() < deadline, [run.status for run in runs]
            time.sleep(0.5)
        # and every report's webhook delivery is sent (a killed sender's claim lapses)
        while (left := store.pending_deliveries()) > 0:
            assert time.monotonic() < deadline, f"{left} deliveries still pending"
            time.sleep(0.5)
        deliveries = _deliveries(database_url)
        taken_over = [store.get(job_id) for job_id in held]
        store.engine.dispose()
    finally:
        for process in processes:
            process.stop()
        hooks.close()
    jobs = _watch_jobs(database_url)
    per_watch: dict[str, list[Any]] = {}
    for run in runs:
        per_watch.setdefault(run.watch_id, []).append(run)
    assert len(per_watch) == WATCHES
    for watch_id, items in per_watch.items():
        assert len(items) >= 3, items  # several due times each
        keys = [k for k in jobs if k.startswith(f"watch:{watch_id}:")]
        assert len(keys) == len(items) and all(jobs[k] == 1 for k in keys)
    completed = _completed_events(database_url)
    assert {run.job_id for run in runs} <= set(completed)
    assert all(completed[run.job_id] == 1 for run in runs)
    assert all(run.summary for run in runs)
    # the killed worker's jobs were taken over by another worker and finished
    assert all(job is not None and job.attempts > 1 for job in taken_over), taken_over
    for process in processes:
        if process is victim:
            continue
        log = process.log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in log, f"{process.kind} {process.ready}:\n{log[-3000:]}"
    # five processes send the outbox: each report reached the receiver once, signed (a
    # delivery the kill interrupted, tried more than once, may have arrived twice: a
    # webhook is at least once)
    secrets = {watch.id: watch.webhook_secret for watch in added}
    taken: dict[str, int] = {}
    for body, signature in receiver.taken():
        report = json.loads(body)
        assert signed(secrets[report["watch_id"]] or "", body, signature)
        taken[report["run_id"]] = taken.get(report["run_id"], 0) + 1
    assert set(taken) == {run.job_id for run in runs}
    assert all(row.status == "delivered" for row in deliveries), deliveries
    once = {row.job_id for row in deliveries if row.attempts == 1}
    assert all(taken[job_id] == 1 for job_id in once), taken
    print(
        f"watch runs: {len(runs)}, jobs: {len(jobs)}, completed once: {len(completed)}, "
        f"webhook deliveries: {len(deliveries)}, each taken once: {len(once)}"
    )
