"""``deepresearch jobs ...`` against the real service on loopback (the real run over the
offline web; only the model's words are scripted): submit, watch with run's live view and
exit codes, report, list, status, cancel, and the errors a user meets."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result
from langchain_core.messages import BaseMessage
from typer.testing import CliRunner

from deepresearch.cli.app import app
from deepresearch.recipes.research.stages import answer
from deepresearch.service.client import ServiceClient
from deepresearch.service.db import make_engine
from deepresearch.service.keys import create_key
from deepresearch.service.store import JobStore
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..export.reading import cited_quotes, docx_text, pdf_text
from .helpers import Service, running_service, service_settings
from .test_client import CuttingProxy, free_port

runner = CliRunner()


def jobs(*args: str, env: dict[str, str | None] | None = None) -> Result:
    """Run ``deepresearch jobs ARGS`` in-process; the server URL and key come only from
    the arguments unless ``env`` sets them."""
    clean: dict[str, str | None] = {"DEEPRESEARCH_SERVER": None, "DEEPRESEARCH_API_KEY": None}
    return runner.invoke(app, ["jobs", *args], env={**clean, **(env or {})})


def ndjson(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _declining_model() -> ScriptedChatModel:
    """A careful model that, asked to answer without search, gives no answer."""
    research = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(answer.SYSTEM[:40]):
            return "I would rather not answer without sources."
        return research(messages)

    return ScriptedChatModel(reply)


@pytest.fixture(scope="module")
def service(service_web: OfflineWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp_path = tmp_path_factory.mktemp("jobs-cli")
    settings = service_settings(
        service_web,
        tmp_path,
        f"sqlite:///{tmp_path / 'service.sqlite3'}",
        active_runs_per_key=5,
        submissions_per_window=100,
    )
    with running_service(settings, model=_declining_model()) as running:
        yield running


@pytest.fixture(scope="module")
def watched(service: Service, questions: list[str]) -> tuple[str, Result]:
    """``jobs submit QUESTION --depth quick --watch``: the job's id and the result."""
    result = jobs("submit", questions[0], "--depth", "quick", "--watch", "--server", service.url)
    return result.stdout.splitlines()[0], result


def test_submit_and_watch_renders_the_live_view_and_exits_0(
    service: Service, watched: tuple[str, Result]
) -> None:
    job_id, result = watched
    assert result.exit_code == 0, result.output
    assert job_id.startswith("run-") and result.stdout.strip() == job_id
    assert f"queued job {job_id}" in result.stderr
    # the same plain-line view as `deepresearch run` on a non-terminal
    assert "[plan] " in result.stderr and "[research] " in result.stderr
    assert "Research finished" in result.stderr
    assert f"synthesized report is ready: deepresearch jobs report {job_id}" in result.stderr
    assert "Traceback" not in result.output


def test_report_in_every_format(
    service: Service, watched: tuple[str, Result], tmp_path: Path
) -> None:
    job_id, _ = watched
    markdown = jobs("report", job_id, "--server", service.url)
    assert markdown.exit_code == 0 and markdown.stdout.startswith("# Research report")
    out = tmp_path / "out" / "report.html"
    html = jobs("report", job_id, "--format", "html", "--out", str(out), "--server", service.url)
    assert html.exit_code == 0 and f"wrote {out}" in html.stderr
    assert "<html" in out.read_text()
    as_json = jobs("report", job_id, "--format", "json", "--server", service.url)
    assert as_json.exit_code == 0
    data = json.loads(as_json.stdout)  # as `deepresearch report --format json` writes it
    assert data["kind"] == "synthesized" and data["markdown"] == markdown.stdout
    assert data["evidence"] and all(
        item["verification"]["status"] == "PASS" for item in data["evidence"]
    )
    # the binary formats need a file (or an explicit '-')
    refused = jobs("report", job_id, "--format", "pdf", "--server", service.url)
    assert refused.exit_code == 2 and "pass --out FILE" in refused.stderr
    for fmt, read in (("pdf", pdf_text), ("docx", docx_text)):
        target = tmp_path / f"report.{fmt}"
        done = jobs(
            "report", job_id, "--format", fmt, "--out", str(target), "--server", service.url
        )
        assert done.exit_code == 0 and f"wrote {target}" in done.stderr
        assert cited_quotes(data)[0] in read(target)


def test_list_and_status(service: Service, watched: tuple[str, Result]) -> None:
    job_id, _ = watched
    listed = jobs("list", "--server", service.url)
    assert listed.exit_code == 0
    line = next(line for line in listed.stdout.splitlines() if line.startswith(job_id))
    assert "\tCOMPLETED\t100%\t" in line
    page = json.loads(jobs("list", "--json", "--limit", "1", "--server", service.url).stdout)
    assert len(page["jobs"]) == 1

    status = jobs("status", job_id, "--server", service.url)
    assert status.exit_code == 0
    lines = status.stdout.splitlines()
    assert lines[0].startswith(f"{job_id}  COMPLETED  100%")
    assert any(line.startswith("usage ") and "model calls" in line for line in lines)
    assert any(line.startswith("counts ") and "evidence_verified" in line for line in lines)
    as_json = json.loads(jobs("status", job_id, "--json", "--server", service.url).stdout)
    assert as_json["id"] == job_id and as_json["status"] == "COMPLETED"
    assert as_json["counts"]["evidence_verified"] > 0


def test_sources_and_queue(service: Service, watched: tuple[str, Result]) -> None:
    job_id, _ = watched
    listed = jobs("sources", job_id, "--server", service.url)
    assert listed.exit_code == 0, listed.output
    rows = [line for line in listed.stdout.splitlines() if not line.startswith(" ")]
    stored = service.client.get(f"/v1/research/{job_id}/sources").json()["sources"]
    assert len(rows) == len(stored) > 0
    assert sum(" cited " in row for row in rows) == sum(item["cited"] for item in stored)
    as_json = json.loads(jobs("sources", job_id, "--json", "--server", service.url).stdout)
    assert as_json["sources"] == stored
    queue = jobs("queue", "--server", service.url)
    assert queue.exit_code == 0 and "COMPLETED" in queue.stdout
    assert "running here" in queue.stdout


def test_watch_with_json_events_replays_every_event_once(
    service: Service, watched: tuple[str, Result]
) -> None:
    job_id, _ = watched
    result = jobs("watch", job_id, "--json-events", "--server", service.url)
    assert result.exit_code == 0, result.output
    events = ndjson(result.stdout)
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "run_started" and events[-1]["type"] == "run_completed"
    assert all(event["run_id"] == job_id for event in events)


def test_watch_survives_the_connection_dropping(service: Service, questions: list[str]) -> None:
    cuts = [700, 1800, 2500]
    with CuttingProxy(service.url, cuts) as proxy:
        result = jobs("submit", questions[3], "--watch", "--json-events", "--server", proxy.url)
    assert result.exit_code == 0, result.output
    assert proxy.cut == len(cuts)
    events = ndjson(result.stdout)
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] == "run_completed"


def test_an_abort_report_exits_3_and_a_chat_reply_is_shown(service: Service) -> None:
    # no search, and the model gives no answer from its knowledge: an honest abort report
    aborted = jobs(
        "submit", "Who is Gallu?", "--search", "none", "--watch", "--server", service.url
    )
    assert aborted.exit_code == 3, aborted.output
    assert "abort report is ready" in aborted.stderr
    chat = jobs("submit", "hello there!", "--watch", "--server", service.url)
    assert chat.exit_code == 0, chat.output
    assert "chitchat report is ready" in chat.stderr


def test_cancel_a_queued_and_a_running_job(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(
        service_web,
        tmp_path,
        f"sqlite:///{tmp_path / 'service.sqlite3'}",
        max_concurrent_jobs=1,
        active_runs_per_key=5,
    )
    with running_service(settings, latency_s=0.3) as service:
        server = ("--server", service.url)
        running = jobs("submit", questions[0], *server).stdout.strip()
        queued = jobs("submit", questions[1], "--json", *server)
        queued_id = json.loads(queued.stdout)["id"]
        assert json.loads(queued.stdout)["status"] == "QUEUED"
        service.wait_for(running, "RUNNING")

        cancelled = jobs("cancel", queued_id, *server)
        assert cancelled.exit_code == 0 and cancelled.stdout.strip() == f"cancelled {queued_id}"
        not_ready = jobs("report", queued_id, *server)
        assert not_ready.exit_code == 1 and "its report is not ready" in not_ready.stderr

        stopping = jobs("cancel", running, *server)
        assert stopping.exit_code == 0 and "it stops within seconds" in stopping.stdout
        started = time.monotonic()
        watched = jobs("watch", running, *server)
        assert watched.exit_code == 1, watched.output
        assert f"job {running} was cancelled" in watched.stderr
        assert time.monotonic() - started < 10
        assert json.loads(jobs("status", running, "--json", *server).stdout)["status"] == (
            "CANCELLED"
        )
        again = jobs("cancel", running, *server)
        assert again.exit_code == 1 and "already CANCELLED" in again.stderr
        assert "Traceback" not in again.output


def test_api_keys_from_the_flag_or_the_environment(service_web: OfflineWeb, tmp_path: Path) -> None:
    settings = service_settings(service_web, tmp_path, f"sqlite:///{tmp_path / 's.sqlite3'}")
    with running_service(settings) as service:
        store = JobStore(make_engine(settings.database_url or ""))
        _, key = create_key(store, "cli")
        store.engine.dispose()
        missing = jobs("list", "--server", service.url)
        assert missing.exit_code == 2
        assert "error: an API key is required" in missing.stderr
        assert "hint: pass --api-key or set DEEPRESEARCH_API_KEY" in missing.stderr

        wrong = "dr_wrong-key-that-must-not-be-echoed"
        refused = jobs("list", "--server", service.url, "--api-key", wrong)
        assert refused.exit_code == 2 and "this API key is not valid" in refused.stderr
        assert wrong not in refused.output

        by_flag = jobs("list", "--server", service.url, "--api-key", key)
        assert by_flag.exit_code == 0 and "no jobs" in by_flag.stderr
        env = {"DEEPRESEARCH_SERVER": service.url, "DEEPRESEARCH_API_KEY": key}
        submitted = jobs("submit", "How do generators work?", "--json", env=env)
        assert submitted.exit_code == 0 and key not in submitted.output
        job_id = json.loads(submitted.stdout)["id"]
        with ServiceClient(service.url, key) as client:
            list(client.events(job_id))
        assert jobs("status", job_id, env=env).exit_code == 0
        helped = jobs("submit", "--help", env=env)
        assert helped.exit_code == 0 and key not in helped.output


def test_an_unknown_job_is_a_usage_error(service: Service) -> None:
    for command in ("status", "watch", "cancel", "report"):
        result = jobs(command, "run-unknown", "--server", service.url)
        assert result.exit_code == 2, (command, result.output)
        assert "error: no job 'run-unknown'" in result.stderr
        assert "hint: 'deepresearch jobs list' shows your jobs" in result.stderr


def test_bad_options_are_usage_errors(service: Service) -> None:
    bad_model = jobs("submit", "q?", "--model", "not a model", "--server", service.url)
    assert bad_model.exit_code == 2 and "options.model" in bad_model.stderr
    blank = jobs("submit", "   ", "--server", service.url)
    assert blank.exit_code == 2 and "give a question" in blank.stderr
    bad_url = jobs("list", "--server", "127.0.0.1:8000")
    assert bad_url.exit_code == 2 and "is not a server URL" in bad_url.stderr
    bad_time = jobs("list", "--before", "yesterday", "--server", service.url)
    assert bad_time.exit_code == 2 and "not an ISO time" in bad_time.stderr


def test_no_service_running_says_how_to_start_one() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    for args in (("list",), ("submit", "q?", "--watch"), ("watch", "run-x")):
        result = jobs(*args, env={"DEEPRESEARCH_SERVER": url})
        assert result.exit_code == 2, result.output
        assert f"error: no service at {url}" in result.stderr
        assert "start it with 'deepresearch serve'" in result.stderr
        assert "Traceback" not in result.output


pytestmark = pytest.mark.slow


def test_a_job_that_waits_is_shown_and_answered_from_the_command_line(
    service: Service, questions: list[str]
) -> None:
    server = ("--server", service.url)
    asked = jobs("submit", questions[1], "--depth", "quick", "--review-plan", "--watch", *server)
    job_id = asked.stdout.splitlines()[0]
    assert asked.exit_code == 4, asked.output  # waits for the plan's review
    assert "The plan. Brief:" in asked.stderr and "q1." in asked.stderr
    assert f"deepresearch jobs reply {job_id} --approve" in asked.stderr
    assert f"deepresearch jobs reply {job_id} --cancel" in asked.stderr
    view = json.loads(jobs("status", job_id, "--json", *server).stdout)
    assert view["status"] == "AWAITING_INPUT" and view["options"]["review_plan"] is True
    plan = view["input_request"]["sub_questions"]

    # a bad answer is the service's 422, said plainly, with the command's own flags (not
    # the API's JSON) for what the job asks; the job still waits
    wrong = jobs("reply", job_id, "just some text", *server)
    assert wrong.exit_code == 2 and "Traceback" not in wrong.output
    assert "error: the run waits for a review of its plan" in wrong.stderr
    assert f"hint: approve with: deepresearch jobs reply {job_id} --approve" in wrong.stderr
    assert '"action"' not in wrong.stderr
    several = jobs("reply", job_id, "--approve", "--cancel", *server)
    assert several.exit_code == 2 and "give one answer" in several.stderr
    edited = [plan[0]["text"]]
    done = jobs("reply", job_id, f"--sub-question={edited[0]}", "--watch", "--json-events", *server)
    assert done.exit_code in (0, 3), done.output
    waves = [e for e in ndjson(done.stdout) if e["type"] == "wave_started"]
    assert [u["text"] for u in waves[0]["data"]["units"]] == edited  # type: ignore[index]
    late = jobs("reply", job_id, "--approve", *server)
    assert late.exit_code == 1 and "already answered, with another answer" in late.stderr


def test_a_waiting_job_is_cancelled_with_jobs_reply(service: Service, questions: list[str]) -> None:
    server = ("--server", service.url)
    asked = jobs(
        "submit", questions[2], "--depth", "quick", "--review-findings", "--watch", *server
    )
    job_id = asked.stdout.splitlines()[0]
    assert asked.exit_code == 4, asked.output
    assert "The verified findings" in asked.stderr
    assert f"deepresearch jobs reply {job_id} --drop ID" in asked.stderr
    text = jobs("reply", job_id, "some text", *server)
    assert text.exit_code == 2 and "a text answer is not a findings reply" in text.stderr
    assert f"hint: approve with: deepresearch jobs reply {job_id} --approve; or --drop ID" in (
        text.stderr
    )
    cancelled = jobs("reply", job_id, "--cancel", *server)
    assert cancelled.exit_code == 1 and f"job {job_id} cancelled" in cancelled.stderr
    watched = jobs("watch", job_id, *server)
    assert watched.exit_code == 1 and f"job {job_id} was cancelled" in watched.stderr
