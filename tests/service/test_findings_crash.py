"""``deepresearch serve`` killed with SIGKILL while a job waits for its findings review,
then started again (issue 15): the job still waits with the same findings, the answer
resumes it from its checkpoint, and it completes without any model call made before the
pause being made again: the planner is not asked again, the writer only once. SQLite and
PostgreSQL."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from deepresearch.recipes.research.stages import plan, write

from ..cli.chat_server import ChatServer, chat_server  # noqa: F401 (fixture)
from ..cli.conftest import cli_corpus, web_process  # noqa: F401 (fixtures)
from .helpers import read_sse
from .test_crash import QUESTION, check_stored_once, serve, wait_for_status

PLANNER = plan.SYSTEM.splitlines()[0]
WRITER = write.SYSTEM.splitlines()[0]


@pytest.mark.slow
def test_kill_9_while_the_findings_wait_then_restart_and_drop_one(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    database_url: str,
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    submission = {"question": QUESTION, "options": {"review_findings": True}}
    with serve(web_process, chat_server, database_url, data_dir) as (proc, url):
        job_id = httpx.post(f"{url}/v1/research", json=submission).json()["id"]
        job = wait_for_status(url, job_id, "AWAITING_INPUT", "FAILED", "COMPLETED")
        assert job["status"] == "AWAITING_INPUT", job
        asked = job["input_request"]
        assert asked["kind"] == "findings" and len(asked["findings"]) >= 2
        before = Counter(chat_server.prompts)
        assert before[PLANNER] == 1 and before[WRITER] == 0  # nothing written yet
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    with serve(web_process, chat_server, database_url, data_dir) as (_, url):
        time.sleep(7)  # longer than a lease (6 s): a job that held one would be taken over now
        job = httpx.get(f"{url}/v1/research/{job_id}").json()
        assert job["status"] == "AWAITING_INPUT" and job["attempts"] == 1, job
        assert job["input_request"] == asked
        dropped = asked["findings"][0]["id"]
        answered = httpx.post(
            f"{url}/v1/research/{job_id}/input", json={"action": "drop", "drop": [dropped]}
        )
        assert answered.status_code == 202, answered.text
        job = wait_for_status(url, job_id, "COMPLETED", "FAILED")
        assert job["status"] == "COMPLETED" and job["attempts"] == 2, job
        report = httpx.get(f"{url}/v1/research/{job_id}/report").json()
        with httpx.Client(base_url=url, timeout=30) as client:
            events = [m.json() for m in read_sse(client, f"/v1/research/{job_id}/events") if m.id]
    after = Counter(chat_server.prompts) - before
    assert after[PLANNER] == 0  # nothing before the pause is paid again
    assert after[WRITER] == 1
    types = [e["type"] for e in events]
    assert types.count("run_started") == 1 and types.count("input_requested") == 1
    assert types.count("input_received") == 1 and types[-1] == "run_completed"
    assert "wave_started" not in types[types.index("input_received") :]
    assert report["kind"] == "synthesized"
    assert dropped not in {item["id"] for item in report["evidence"]}
    check_stored_once(database_url, job_id, report)
