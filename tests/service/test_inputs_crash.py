"""``deepresearch serve`` killed with SIGKILL while a job waits for a person's answer,
then started again (issue 15): the job still waits (nothing claimed it: it held no lease),
the answer resumes it from its checkpoint, and it completes without any model call made
before the pause being made again. SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import BaseMessage

from deepresearch.recipes.research.stages import intake, plan
from deepresearch.testing.research_script import research_script

from ..cli.chat_server import ChatServer, chat_server  # noqa: F401 (fixture)
from ..cli.conftest import cli_corpus, web_process  # noqa: F401 (fixtures)
from .helpers import read_sse
from .test_crash import QUESTION, check_stored_once, serve, wait_for_status

ASKED = "Do you mean Lilu in Mesopotamian myth?"
INTAKE = intake.SYSTEM.splitlines()[0]
PLANNER = plan.SYSTEM.splitlines()[0]


@pytest.mark.slow
def test_kill_9_while_waiting_then_restart_and_answer_completes_the_job(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    research = research_script()

    def script(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(INTAKE):
            return json.dumps({"intent": "clarify", "reply": ASKED})
        return research(messages)

    monkeypatch.setattr(chat_server.RequestHandlerClass, "script", staticmethod(script))
    data_dir = tmp_path / "data"
    with serve(web_process, chat_server, database_url, data_dir) as (proc, url):
        job_id = httpx.post(f"{url}/v1/research", json={"question": QUESTION}).json()["id"]
        job = wait_for_status(url, job_id, "AWAITING_INPUT", "FAILED", "COMPLETED")
        assert job["status"] == "AWAITING_INPUT", job
        before = Counter(chat_server.prompts)
        # the plan drafted alongside intake (core.intake.plan_ahead), dropped: it clarifies
        assert before[INTAKE] == 1 and before[PLANNER] == 1
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    with serve(web_process, chat_server, database_url, data_dir) as (_, url):
        time.sleep(7)  # longer than a lease (6 s): a job that held one would be taken over now
        job = httpx.get(f"{url}/v1/research/{job_id}").json()
        assert job["status"] == "AWAITING_INPUT" and job["attempts"] == 1, job
        assert job["input_request"]["question"] == ASKED
        answered = httpx.post(
            f"{url}/v1/research/{job_id}/input", json={"answer": "Yes, the demon"}
        )
        assert answered.status_code == 202, answered.text
        job = wait_for_status(url, job_id, "COMPLETED", "FAILED")
        assert job["status"] == "COMPLETED" and job["attempts"] == 2, job
        report = httpx.get(f"{url}/v1/research/{job_id}/report").json()
        with httpx.Client(base_url=url, timeout=30) as client:
            events = [m.json() for m in read_sse(client, f"/v1/research/{job_id}/events") if m.id]
    after = Counter(chat_server.prompts) - before
    assert after[INTAKE] == 0  # nothing before the pause is paid again
    assert after[PLANNER] == 1
    types = [e["type"] for e in events]
    assert types.count("run_started") == 1 and types.count("input_requested") == 1
    assert types.count("input_received") == 1 and types[-1] == "run_completed"
    assert report["kind"] == "synthesized"
    check_stored_once(database_url, job_id, report)
