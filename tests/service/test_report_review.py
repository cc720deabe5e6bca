"""The finished report's review through the HTTP API (issue 28), on SQLite and
PostgreSQL: a job submitted with ``review_report`` waits after the audit with its
report's sentences; bad answers get a 422 that says what is wrong (the job keeps
waiting); an edit answered with ``POST /v1/research/{id}/input`` continues the same run,
and an edit its citations do not support is not in the report. Feedback rewrites the
report once. Killed while it waits, the service resumes the pause from its checkpoint."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from deepresearch.recipes.research.stages import plan, write
from deepresearch.testing.web import OfflineWeb

from ..cli.chat_server import ChatServer, chat_server  # noqa: F401 (fixture)
from ..cli.conftest import cli_corpus, web_process  # noqa: F401 (fixtures)
from .helpers import read_sse, running_service, service_settings
from .test_crash import QUESTION, check_stored_once, serve, wait_for_status

UNSUPPORTED = "The Eiffel Tower was painted green in 1999 by 4000 volunteers from Atlantis."
PLANNER = plan.SYSTEM.splitlines()[0]
WRITER = write.SYSTEM.splitlines()[0]


def _sentences(report: dict[str, object]) -> list[str]:
    summary = [s["text"] for s in report["summary"]]  # type: ignore[attr-defined]
    return summary + [
        sentence["text"]
        for section in report["sections"]  # type: ignore[attr-defined]
        for paragraph in section["paragraphs"]
        for sentence in paragraph["sentences"]
    ]


def test_an_edit_answered_over_the_api_is_audited(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        job_id = service.submit(questions[0], options={"review_report": True}).json()["id"]
        waiting = service.wait_for(job_id, "AWAITING_INPUT", "COMPLETED", "FAILED")
        assert waiting["status"] == "AWAITING_INPUT", waiting
        assert waiting["options"]["review_report"] is True
        asked = waiting["input_request"]
        assert asked["kind"] == "report" and asked["sentences"] and asked["rewrite"] is True
        assert {"id", "section", "text", "sources"} <= set(asked["sentences"][0])
        first = asked["sentences"][0]
        path = f"/v1/research/{job_id}/input"
        for bad, detail in (
            ({"action": "edit", "sentences": {"s999": "x"}}, "no sentence has the id"),
            ({"action": "edit"}, "named none"),
            ({"action": "edit", "sentences": {first["id"]: first["text"]}}, "changes no"),
            ({"action": "feedback", "feedback": "no"}, "the feedback is 2 characters"),
            ({"action": "drop", "drop": ["x"]}, "report reply"),
            ({"answer": "yes"}, "report reply"),
        ):
            refused = service.client.post(path, json=bad)
            assert refused.status_code == 422, (bad, refused.text)
            assert detail in refused.text, refused.text
        assert service.job(job_id)["status"] == "AWAITING_INPUT"

        answer = {"action": "edit", "sentences": {first["id"]: UNSUPPORTED}}
        accepted = service.client.post(path, json=answer)
        assert accepted.status_code == 202, accepted.text
        done = service.wait_for(job_id, "COMPLETED", "FAILED")
        assert done["status"] == "COMPLETED", done
        events = [
            m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events") if m.id
        ]
        types = [e["type"] for e in events]
        assert types.count("input_requested") == 1 and "edits_audited" in types
        received = events[types.index("input_received")]["data"]
        assert received == {"kind": "report", "action": "edit", "edited": [first["id"]]}
        report = service.client.get(f"/v1/research/{job_id}/report").json()
        assert UNSUPPORTED not in _sentences(report)
        markdown = service.client.get(
            f"/v1/research/{job_id}/report", headers={"Accept": "text/markdown"}
        ).text
        assert UNSUPPORTED not in markdown and "review edited 1 sentence(s)" in markdown


@pytest.mark.slow
def test_kill_9_while_the_report_waits_then_restart_and_give_feedback(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    database_url: str,
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    submission = {"question": QUESTION, "options": {"review_report": True}}
    with serve(web_process, chat_server, database_url, data_dir) as (proc, url):
        job_id = httpx.post(f"{url}/v1/research", json=submission).json()["id"]
        job = wait_for_status(url, job_id, "AWAITING_INPUT", "FAILED", "COMPLETED")
        assert job["status"] == "AWAITING_INPUT", job
        asked = job["input_request"]
        assert asked["kind"] == "report" and asked["sentences"]
        before = Counter(chat_server.prompts)
        assert before[PLANNER] == 1 and before[WRITER] == 1  # written once before the pause
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    with serve(web_process, chat_server, database_url, data_dir) as (_, url):
        time.sleep(7)  # longer than a lease (6 s): a job that held one would be taken over now
        job = httpx.get(f"{url}/v1/research/{job_id}").json()
        assert job["status"] == "AWAITING_INPUT" and job["attempts"] == 1, job
        assert job["input_request"] == asked
        answered = httpx.post(
            f"{url}/v1/research/{job_id}/input",
            json={"action": "feedback", "feedback": "Lead with what Lilu is."},
        )
        assert answered.status_code == 202, answered.text
        job = wait_for_status(url, job_id, "COMPLETED", "FAILED")
        assert job["status"] == "COMPLETED" and job["attempts"] == 2, job
        report = httpx.get(f"{url}/v1/research/{job_id}/report").json()
        with httpx.Client(base_url=url, timeout=30) as client:
            events = [m.json() for m in read_sse(client, f"/v1/research/{job_id}/events") if m.id]
    after = Counter(chat_server.prompts) - before
    assert after[PLANNER] == 0  # nothing before the pause is paid again
    assert after[WRITER] == 1  # the one rewrite
    types = [e["type"] for e in events]
    assert types.count("run_started") == 1 and types.count("input_requested") == 1
    assert types.count("report_ready") == 2 and types[-1] == "run_completed"
    assert report["kind"] == "synthesized"
    check_stored_once(database_url, job_id, report)
