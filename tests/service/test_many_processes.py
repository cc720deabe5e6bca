"""Many machines, one PostgreSQL (issue 18, part 8): two ``deepresearch serve
--no-workers`` processes and three ``deepresearch worker`` processes, each with a data
folder of its own, share one database. Thirty jobs are submitted through both APIs to a
model that takes a while to answer; one worker is killed with SIGKILL while it runs
jobs. Every job completes exactly once, nothing is stored twice, and every event stream,
live through one API and replayed through the other, is complete."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from deepresearch.service.db import make_engine
from deepresearch.service.tables import job_events, research_jobs

from ..cli.chat_server import MODELS_LIST, ChatServer, chat_server  # noqa: F401 (fixture)
from ..cli.conftest import cli_corpus, web_process  # noqa: F401 (fixtures)
from .conftest import SHARED_DATA
from .helpers import SseMessage, read_sse
from .postgres import PostgresServer
from .processes import Process, launch, wait_ready
from .test_crash import check_stored_once

# five processes, SIGKILL timed against the first checkpoint and six-second leases: beside
# three busy workers a kill can land after that checkpoint, so make test's serial pass
pytestmark = pytest.mark.serial

JOBS = 30
WORKERS = 3
CONCURRENCY = 3  # jobs per worker process
LATENCY_S = 0.15  # every model call
LEASE_S = 6
TERMINAL_EVENTS = {"run_completed", "run_failed", "run_cancelled"}


def _questions() -> list[str]:
    from deepresearch.testing.corpora import hotpotqa_questions

    return [item.question for item in hotpotqa_questions(SHARED_DATA)][:JOBS]


def _leases(database_url: str) -> dict[str, str]:
    """Running job id -> the worker holding its lease."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(research_jobs.c.id, research_jobs.c.lease_owner).where(
                    research_jobs.c.status == "RUNNING"
                )
            ).all()
    finally:
        engine.dispose()
    return {row.id: str(row.lease_owner) for row in rows}


def _completed_events(database_url: str) -> dict[str, int]:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(job_events.c.job_id, func.count())
                .where(job_events.c.type == "run_completed")
                .group_by(job_events.c.job_id)
            ).all()
    finally:
        engine.dispose()
    return {str(job_id): int(count) for job_id, count in rows}


def _check_stream(messages: list[SseMessage], job_id: str) -> None:
    ids = [int(m.id) for m in messages if m.id is not None]
    assert ids == list(range(1, len(ids) + 1)), f"{job_id}: ids {ids}"
    events = [m.json() for m in messages if m.id is not None]
    assert events[-1]["type"] == "run_completed", (job_id, events[-1])
    assert sum(e["type"] in TERMINAL_EVENTS for e in events) == 1
    assert [e["type"] for e in events].count("run_started") == 1


@pytest.mark.slow
def test_two_apis_and_three_workers_share_postgresql_through_a_kill_9(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    postgres_server: PostgresServer,
    tmp_path: Path,
) -> None:
    database_url = postgres_server.new_database()
    chat_server.latency_s = LATENCY_S
    questions = _questions()
    assert len(questions) == JOBS
    where: dict[str, Any] = {"web": web_process, "chat": chat_server, "database_url": database_url}
    api_env = {  # one key-less caller submits every job
        "DEEPRESEARCH_ACTIVE_RUNS_PER_KEY": "1000",
        "DEEPRESEARCH_SUBMISSIONS_PER_WINDOW": "1000",
    }
    processes: list[Process] = []
    try:
        # all five start at once on an empty database: they migrate one at a time
        apis = [
            launch("serve", tmp_path / f"api{i}", **where, args=("--no-workers",), env=api_env)
            for i in range(2)
        ]
        workers = [
            launch(
                "worker",
                tmp_path / f"worker{i}",
                **where,
                args=("--concurrency", str(CONCURRENCY)),
                env={"DEEPRESEARCH_JOB_LEASE_S": str(LEASE_S)},
            )
            for i in range(WORKERS)
        ]
        processes += apis + workers
        for process in processes:
            wait_ready(process)
        clients = [httpx.Client(base_url=api.ready, timeout=30) for api in apis]

        job_ids: list[str] = []
        for number, question in enumerate(questions):
            response = clients[number % 2].post(
                "/v1/research", json={"question": question, "options": {"depth": "quick"}}
            )
            assert response.status_code == 201, response.text
            job_ids.append(str(response.json()["id"]))
        assert len(set(job_ids)) == JOBS

        # every job's live stream, read through the API it was not submitted to
        live: dict[str, list[SseMessage]] = {}
        failures: list[BaseException] = []

        def follow(index: int, job_id: str) -> None:
            try:
                with httpx.Client(base_url=apis[(index + 1) % 2].ready) as client:
                    live[job_id] = read_sse(client, f"/v1/research/{job_id}/events", timeout=120)
            except BaseException as exc:
                failures.append(exc)

        readers = [
            threading.Thread(target=follow, args=(i, job_id), daemon=True)
            for i, job_id in enumerate(job_ids)
        ]
        for reader in readers:
            reader.start()

        # kill -9 a worker while it holds jobs, some jobs being done already
        victim = workers[0]
        deadline = time.monotonic() + 180
        owners: set[str] = set()
        while True:
            leases = _leases(database_url)
            owners |= set(leases.values())
            held = [j for j, owner in leases.items() if owner == victim.ready]
            done = len(_completed_events(database_url))
            if held and done >= 3:
                break
            assert time.monotonic() < deadline, "the first worker never held a job"
            time.sleep(0.2)
        os.kill(victim.pid, signal.SIGKILL)
        victim.popen.wait(timeout=10)
        # what it held when it died (it may have finished one since the look above): its
        # leases last another few seconds, so no other worker has taken them yet
        held = [j for j, owner in _leases(database_url).items() if owner == victim.ready]
        assert held, "the first worker finished its jobs before it was killed"
        # only the workers run jobs: the APIs were started with --no-workers
        assert owners <= {worker.ready for worker in workers}, owners

        for reader in readers:
            reader.join(timeout=400)
        assert not failures, failures
        assert not any(reader.is_alive() for reader in readers), "a stream never ended"

        views = [clients[i % 2].get(f"/v1/research/{j}").json() for i, j in enumerate(job_ids)]
        failed = [
            (v["id"], v["attempts"], v.get("error")) for v in views if v["status"] != "COMPLETED"
        ]
        assert not failed, failed
        # the killed worker's jobs were taken over by the others and resumed
        taken_over = {view["id"] for view in views if view["attempts"] > 1}
        assert set(held) <= taken_over
        assert _completed_events(database_url) == dict.fromkeys(job_ids, 1)

        for index, job_id in enumerate(job_ids):
            _check_stream(live[job_id], job_id)
            replayed = read_sse(clients[index % 2], f"/v1/research/{job_id}/events")
            _check_stream(replayed, job_id)
            assert [m.data for m in replayed if m.id] == [m.data for m in live[job_id] if m.id]
            report = clients[index % 2].get(f"/v1/research/{job_id}/report").json()
            check_stored_once(database_url, job_id, report)
        for client in clients:
            client.close()
    finally:
        for process in processes:
            process.stop()
    for process in processes[:2] + processes[3:]:  # the killed one aside
        log = process.log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in log, f"{process.kind} {process.ready}:\n{log[-3000:]}"


@pytest.mark.slow
def test_a_job_killed_before_its_first_checkpoint_starts_once_on_another_worker(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    postgres_server: PostgresServer,
    tmp_path: Path,
) -> None:
    """The first worker dies before its run's first checkpoint (waiting for its model's
    preflight); a worker on "another machine"
    (its own data folder: no caches) runs the job from the start. The stream says once
    that the run started."""
    from deepresearch.recipes.research.stages import intake

    database_url = postgres_server.new_database()
    where: dict[str, Any] = {"web": web_process, "chat": chat_server, "database_url": database_url}
    lease = {"DEEPRESEARCH_JOB_LEASE_S": str(LEASE_S)}
    api = wait_ready(launch("serve", tmp_path / "api", **where, args=("--no-workers",)))
    first = wait_ready(launch("worker", tmp_path / "first", **where, env=lease))
    # the run waits for its model's preflight, before the graph starts (and so before any
    # checkpoint): holding the first model call would not do, the first node checkpoints
    # before it; the intake call is held too, in case a preflight is not asked
    chat_server.hold[MODELS_LIST] = 60
    chat_server.hold[intake.SYSTEM.splitlines()[0]] = 60
    second: Process | None = None
    try:
        with httpx.Client(base_url=api.ready, timeout=30) as client:
            asked = len(chat_server.prompts)
            job_id = client.post("/v1/research", json={"question": _questions()[0]}).json()["id"]
            deadline = time.monotonic() + 60
            while not _leases(database_url):
                assert time.monotonic() < deadline, "the job was never claimed"
                time.sleep(0.1)
            time.sleep(1)  # its first events are stored
            # no model call yet: the run is still before its graph, so before any checkpoint
            assert len(chat_server.prompts) == asked
            os.kill(first.pid, signal.SIGKILL)
            first.popen.wait(timeout=10)
            chat_server.hold.clear()
            second = wait_ready(launch("worker", tmp_path / "second", **where, env=lease))
            messages = read_sse(client, f"/v1/research/{job_id}/events", timeout=120)
            view = client.get(f"/v1/research/{job_id}").json()
    finally:
        for process in (api, first, second):
            if process is not None:
                process.stop()
    assert view["status"] == "COMPLETED" and view["attempts"] == 2, view
    _check_stream(messages, job_id)
    assert "run_resumed" not in [m.event for m in messages]  # started afresh, once
