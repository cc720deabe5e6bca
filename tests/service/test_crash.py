"""``deepresearch serve`` as a real process, killed with SIGKILL (or stopped with SIGTERM)
in the middle of a job, then started again: the job completes from its checkpoint, nothing
is stored twice, no model call that had succeeded is sent to the model again, and a
client reading the whole event stream counts what a clean run's stream counts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from deepresearch.recipes.research.stages import compress, write
from deepresearch.service.db import make_engine
from deepresearch.service.tables import job_events, research_evidence

from ..cli.chat_server import SECRET, ChatServer, chat_server  # noqa: F401 (fixture)
from ..cli.conftest import cli_corpus, web_process  # noqa: F401 (fixtures)
from .helpers import read_sse

WRITER = write.SYSTEM.splitlines()[0]
SUMMARIZER = compress.SYSTEM.splitlines()[0]
QUESTION = "If Gallu is a demon Lilu is what?"


@contextmanager
def serve(
    web: str,
    chat: ChatServer,
    database_url: str,
    data_dir: Path,
    *,
    lease_s: float = 6,
    extra: dict[str, str] | None = None,
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    env = {
        **(extra or {}),
        **os.environ,
        "DEEPRESEARCH_DATA_DIR": str(data_dir),
        "DEEPRESEARCH_MODEL_API_KEY": SECRET,
        "DEEPRESEARCH_JOB_LEASE_S": str(lease_s),
        "DEEPRESEARCH_DEPTH": "quick",
        "DEEPRESEARCH_MIN_DOMAINS": "1",
        "DEEPRESEARCH_FETCH_MIN_INTERVAL_S": "0",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deepresearch.cli.app",
            "serve",
            "--port",
            "0",
            "--database-url",
            database_url,
            "--model",
            "openai:local-model",
            "--model-base-url",
            f"http://127.0.0.1:{chat.server_address[1]}/v1",
            "--search",
            "searxng",
            "--searxng-url",
            web,
            "--allow-host",
            web.removeprefix("http://"),
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    url = ""
    deadline = time.monotonic() + 60
    while not url and time.monotonic() < deadline:
        line = proc.stderr.readline()
        found = re.search(r"serving on (http://127\.0\.0\.1:\d+)", line)
        url = found.group(1) if found else ""
        if not line and proc.poll() is not None:
            break
    if not url:
        proc.kill()
        pytest.fail("deepresearch serve did not start")
    try:
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def wait_until(condition: object, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def wait_for_status(
    url: str, job_id: str, *statuses: str, timeout: float = 90
) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while True:
        job: dict[str, object] = httpx.get(f"{url}/v1/research/{job_id}", timeout=10).json()
        if job["status"] in statuses:
            return job
        assert time.monotonic() < deadline, f"job stayed {job['status']}"
        time.sleep(0.1)


def check_stored_once(database_url: str, job_id: str, report: dict[str, object]) -> None:
    engine = make_engine(database_url)
    with engine.connect() as conn:
        evidence_ids = [
            row.evidence_id
            for row in conn.execute(
                select(research_evidence.c.evidence_id).where(research_evidence.c.job_id == job_id)
            )
        ]
        seqs = [
            row.seq
            for row in conn.execute(
                select(job_events.c.seq)
                .where(job_events.c.job_id == job_id)
                .order_by(job_events.c.seq)
            )
        ]
        terminal = conn.execute(
            select(func.count())
            .select_from(job_events)
            .where(job_events.c.job_id == job_id, job_events.c.type == "run_completed")
        ).scalar_one()
    engine.dispose()
    assert sorted(evidence_ids) == sorted(item["id"] for item in report["evidence"])  # type: ignore[index, union-attr]
    assert len(evidence_ids) == len(set(evidence_ids)) > 0
    assert seqs == list(range(1, len(seqs) + 1))
    assert terminal == 1


@pytest.mark.slow
def test_kill_9_mid_run_then_restart_completes_the_job(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    database_url: str,
    tmp_path: Path,
) -> None:
    chat_server.write_delay_s = 60  # the writer's reply never comes before the kill
    data_dir = tmp_path / "data"
    with serve(web_process, chat_server, database_url, data_dir) as (proc, url):
        job_id = httpx.post(f"{url}/v1/research", json={"question": QUESTION}).json()["id"]
        wait_until(lambda: WRITER in chat_server.prompts)
        before = Counter(chat_server.prompts)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    chat_server.write_delay_s = 0
    with serve(web_process, chat_server, database_url, data_dir) as (_, url):
        job = wait_for_status(url, job_id, "COMPLETED", "FAILED")
        assert job["status"] == "COMPLETED", job
        assert job["attempts"] == 2
        report = httpx.get(f"{url}/v1/research/{job_id}/report").json()
        client = httpx.Client(base_url=url, timeout=30)
        events = read_sse(client, f"/v1/research/{job_id}/events")
        client.close()
    after = Counter(chat_server.prompts) - before
    # the writer's call that never finished is made again; everything before it is not
    assert after[WRITER] == 1
    for prompt, count in after.items():
        assert prompt in (WRITER, *_later_stage_prompts()), f"{prompt!r} repeated {count}x"
    types = [m.event for m in events if m.id]
    assert "run_resumed" in types and types[-1] == "run_completed"
    assert types.count("run_started") == 1
    check_stored_once(database_url, job_id, report)


@pytest.mark.slow
def test_a_restarted_server_resumes_the_jobs_it_held_at_once_and_first(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    database_url: str,
    tmp_path: Path,
) -> None:
    """Killed with a job running and one queued behind it, the server starts again on its
    data folder: the job it held resumes before the queued one, without waiting out its
    lease (ten minutes here: the test would time out)."""
    chat_server.write_delay_s = 60
    data_dir = tmp_path / "data"
    one = {"DEEPRESEARCH_MAX_CONCURRENT_JOBS": "1", "DEEPRESEARCH_ACTIVE_RUNS_PER_KEY": "2"}
    with serve(web_process, chat_server, database_url, data_dir, lease_s=600, extra=one) as (
        proc,
        url,
    ):
        held = httpx.post(f"{url}/v1/research", json={"question": QUESTION}).json()["id"]
        wait_until(lambda: WRITER in chat_server.prompts)
        queued = httpx.post(f"{url}/v1/research", json={"question": QUESTION + " (2)"})
        assert queued.json()["status"] == "QUEUED", queued.json()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    chat_server.write_delay_s = 0
    with serve(web_process, chat_server, database_url, data_dir, lease_s=600, extra=one) as (
        _,
        url,
    ):
        first = wait_for_status(url, held, "COMPLETED", "FAILED")
        second = wait_for_status(url, queued.json()["id"], "COMPLETED", "FAILED")
    assert first["status"] == "COMPLETED" and first["attempts"] == 2, first
    assert second["status"] == "COMPLETED" and second["attempts"] == 1, second
    # one job at a time: the one it held ran first
    started, finished = (
        datetime.fromisoformat(str(job[key]))
        for job, key in ((second, "started_at"), (first, "finished_at"))
    )
    assert started >= finished


@pytest.mark.slow
def test_sigterm_hands_the_job_back_and_a_restart_finishes_it(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    database_url = f"sqlite:///{tmp_path / 'service.sqlite3'}"
    chat_server.write_delay_s = 60
    data_dir = tmp_path / "data"
    with serve(web_process, chat_server, database_url, data_dir) as (proc, url):
        job_id = httpx.post(f"{url}/v1/research", json={"question": QUESTION}).json()["id"]
        wait_until(lambda: WRITER in chat_server.prompts)
        stopped_at = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        # uvicorn shuts down gracefully, then re-raises the signal as its exit status
        assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
        assert time.monotonic() - stopped_at < 25
    engine = make_engine(database_url)
    with engine.connect() as conn:
        status, owner = conn.exec_driver_sql(
            "SELECT status, lease_owner FROM research_jobs WHERE id = ?", (job_id,)
        ).one()
    engine.dispose()
    assert (status, owner) == ("QUEUED", None)  # released, not left running without owner

    chat_server.write_delay_s = 0
    with serve(web_process, chat_server, database_url, data_dir) as (_, url):
        job = wait_for_status(url, job_id, "COMPLETED", "FAILED")
        assert job["status"] == "COMPLETED"


@pytest.mark.slow
# timing-sensitive (where the kills land in a wave): in make test's serial pass, alone
@pytest.mark.serial
def test_a_run_killed_twice_mid_wave_streams_the_counts_of_a_clean_run(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    database_url: str,
    tmp_path: Path,
) -> None:
    """Each kill lands in the research wave, after pages were read and announced and
    before their summaries came back; each restart runs that wave again."""
    chat_server.hold[SUMMARIZER] = 60
    data_dir = tmp_path / "data"
    job_id = _kill_mid_wave(web_process, chat_server, database_url, data_dir, None)
    _kill_mid_wave(web_process, chat_server, database_url, data_dir, job_id)

    chat_server.hold.clear()
    with serve(web_process, chat_server, database_url, data_dir) as (_, url):
        resumed = wait_for_status(url, job_id, "COMPLETED", "FAILED")
        assert resumed["status"] == "COMPLETED" and resumed["attempts"] == 3, resumed
        # afresh: the resumed run's quotes are in the library now, and would be reused
        afresh = {"question": QUESTION, "options": {"use_library": False}}
        clean_id = httpx.post(f"{url}/v1/research", json=afresh).json()["id"]
        clean = wait_for_status(url, clean_id, "COMPLETED", "FAILED")
        with httpx.Client(base_url=url, timeout=30) as client:
            streams = {
                name: [m.json() for m in read_sse(client, f"/v1/research/{jid}/events") if m.id]
                for name, jid in (("resumed", job_id), ("clean", clean_id))
            }
    tallies = {name: _tally(events) for name, events in streams.items()}
    assert [e["type"] for e in streams["resumed"]].count("run_resumed") == 2
    assert tallies["resumed"] == tallies["clean"]
    assert tallies["clean"]["sources read"] > 0 and tallies["clean"]["evidence"] > 0
    for key in ("sources_fetched", "evidence", "searches"):
        assert resumed["counts"].get(key) == clean["counts"].get(key), key


def _kill_mid_wave(
    web: str, chat: ChatServer, database_url: str, data_dir: Path, job_id: str | None
) -> str:
    """Start the service (submitting the job, or resuming it), kill it once the job's
    wave waits for its summaries; the job's id."""
    with serve(web, chat, database_url, data_dir) as (proc, url):
        held = chat.prompts.count(SUMMARIZER)
        if job_id is None:
            job_id = str(httpx.post(f"{url}/v1/research", json={"question": QUESTION}).json()["id"])
            wait_until(partial(_has_read_a_page, url, job_id))  # and that is stored
        wait_until(lambda: chat.prompts.count(SUMMARIZER) > held)  # mid-wave
        time.sleep(1)  # whatever it announced (again) is stored by now
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    return job_id


def _has_read_a_page(url: str, job_id: str) -> bool:
    job = httpx.get(f"{url}/v1/research/{job_id}", timeout=10).json()
    return int(job["counts"].get("sources_fetched", 0)) > 0


def _tally(events: list[dict[str, object]]) -> dict[str, int]:
    """What a client counts from a stream: pages read (and each once), evidence, waves."""

    def data(event: dict[str, object]) -> dict[str, object]:
        value = event["data"]
        assert isinstance(value, dict)
        return value

    fetched = [str(data(e)["url"]) for e in events if e["type"] == "source_fetched"]
    assert len(fetched) == len(set(fetched)), "a page announced twice"
    return {
        "sources read": len(fetched),
        "sources failed": sum(e["type"] == "source_failed" for e in events),
        "evidence": sum(
            int(data(e)["count"])  # type: ignore[call-overload]
            for e in events
            if e["type"] == "evidence_added"
        ),
        "units": sum(e["type"] == "evidence_added" for e in events),
        "waves": sum(e["type"] == "wave_started" for e in events),
        "searches": sum(e["type"] == "search_completed" for e in events),
    }


def _later_stage_prompts() -> tuple[str, ...]:
    from deepresearch.recipes.research.stages import audit, sections

    return (
        audit.SYSTEM.splitlines()[0],
        audit.BATCH_SYSTEM.splitlines()[0],  # a few sentences a call, past the judge's slots
        write.FINDINGS_SYSTEM.splitlines()[0],
        sections.SECTION_SYSTEM.splitlines()[0],  # the planned sections, after the outline
        sections.REPAIR_SYSTEM.splitlines()[0],
    )
