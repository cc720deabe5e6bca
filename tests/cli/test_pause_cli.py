"""Runs that wait for a person, from the command line (issue 15): without a terminal the
run ends with exit code 4 and says how to answer; ``deepresearch reply`` continues the same
run and writes its report where the run was to write it. On a terminal the question is
asked there. The model is an OpenAI-compatible server on loopback whose words come from
the research script, except that intake asks one clarifying question."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage

from deepresearch.recipes.research.stages import intake, plan
from deepresearch.testing.research_script import research_script

from .chat_server import SECRET, ChatServer
from .conftest import cli, offline_args

QUESTION = "If Gallu is a demon Lilu is what?"
ASKED = "Do you mean Lilu in Mesopotamian myth?"


@pytest.fixture
def clarifying(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ChatServer:
    research = research_script()

    def script(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(intake.SYSTEM.splitlines()[0]):
            return json.dumps({"intent": "clarify", "reply": ASKED})
        return research(messages)

    monkeypatch.setattr(chat_server.RequestHandlerClass, "script", staticmethod(script))
    return chat_server


def _model_args(server: ChatServer) -> list[str]:
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    return ["--model", "openai:local-model", "--model-base-url", base_url]


def _events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_clarify_then_reply_writes_the_report(
    web_process: str, clarifying: ChatServer, tmp_path: Path
) -> None:
    env = {"DEEPRESEARCH_MODEL_API_KEY": SECRET, "DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")}
    out = tmp_path / "report.json"
    asked = cli(
        "run",
        QUESTION,
        *_model_args(clarifying),
        *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
        *("--run-id", "ask-1", "--format", "json", "--out", str(out)),
        env=env,
    )
    assert asked.returncode == 4, asked.stderr
    assert ASKED in asked.stderr
    assert 'deepresearch reply ask-1 "YOUR ANSWER"' in asked.stderr
    assert not out.exists()
    runs = cli("runs", "list", env=env)
    assert "awaiting_input" in runs.stdout + runs.stderr

    # a bad answer is refused (exit 2) and the run keeps waiting
    bad = cli("reply", "ask-1", "   ", env=env)
    assert bad.returncode == 2 and "the answer is empty" in bad.stderr

    prompts_before = len(clarifying.prompts)
    done = cli("reply", "ask-1", "Yes, the Mesopotamian demon", "--json-events", env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())  # where the run was to write it, as JSON
    assert report["run_id"] == "ask-1" and report["kind"] == "synthesized"
    types = [e["type"] for e in _events(done.stdout)]
    assert types[0] == "run_resumed" and "input_received" in types
    assert types[-1] == "run_completed"
    # the same run: intake was not asked again; planning saw the question and the answer
    later = clarifying.prompts[prompts_before:]
    assert not any(p.startswith(intake.SYSTEM.splitlines()[0]) for p in later)
    again = cli("reply", "ask-1", "more", env=env)
    assert again.returncode == 2 and "not waiting for input" in again.stderr


def test_review_plan_without_a_model_researches_the_edited_plan(
    web_process: str, tmp_path: Path
) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")}
    out = tmp_path / "report.md"
    asked = cli(
        "run",
        QUESTION,
        "--model",
        "none",
        "--review-plan",
        *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
        *("--run-id", "plan-1", "--out", str(out)),
        env=env,
    )
    assert asked.returncode == 4, asked.stderr
    assert "The plan. Brief:" in asked.stderr and "q1." in asked.stderr
    # seed 004: the plan's scope, evidence strategy and output format, without a model too
    for shown in ("Scope: ", "Evidence strategy: Web search", "Output format: A cited report"):
        assert shown in asked.stderr
    assert "deepresearch reply plan-1 --approve" in asked.stderr
    # text to a plan review: the hint is in the CLI's flags, not the API's JSON
    text = cli("reply", "plan-1", "the planet", env=env)
    assert text.returncode == 2 and "a review of its plan: a text answer is not" in text.stderr
    assert "deepresearch reply plan-1 --approve" in text.stderr and "--sub-question" in text.stderr
    assert '"action"' not in text.stderr
    too_many = cli("reply", "plan-1", *[f"--sub-question=Question {i}?" for i in range(9)], env=env)
    assert too_many.returncode == 2 and "1 to 8 sub-questions" in too_many.stderr
    edited = ["What is Lilu in Mesopotamian myth?", "What is a Gallu demon?"]
    done = cli(
        "reply",
        "plan-1",
        *[f"--sub-question={text}" for text in edited],
        "--json-events",
        env=env,
    )
    assert done.returncode in (0, 3), done.stderr
    events = _events(done.stdout)
    wave = next(e for e in events if e["type"] == "wave_started")
    assert [u["text"] for u in wave["data"]["units"]] == edited  # type: ignore[index]
    assert out.exists()


def test_on_a_terminal_the_question_is_asked_there(
    web_process: str, clarifying: ChatServer, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "DEEPRESEARCH_MODEL_API_KEY": SECRET,
        "DEEPRESEARCH_DATA_DIR": str(tmp_path / "d"),
        "TERM": "dumb",
    }
    out = tmp_path / "report.md"
    main, tty = pty.openpty()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deepresearch.cli.app",
            "run",
            QUESTION,
            *_model_args(clarifying),
            *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
            *("--out", str(out)),
        ],
        stdin=tty,
        stdout=subprocess.DEVNULL,
        stderr=tty,
        env=env,
    )
    os.close(tty)
    seen = b""
    answered = False
    deadline = time.monotonic() + 240
    while process.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.5)
        if ready:
            try:
                seen += os.read(main, 4096)
            except OSError:
                break
        if not answered and b"Your answer" in seen:
            os.write(main, b"Yes, the Mesopotamian demon\r")
            answered = True
    process.wait(timeout=30)
    os.close(main)
    assert answered, seen.decode(errors="replace")[-2000:]
    assert ASKED.encode() in seen
    assert process.returncode == 0, seen.decode(errors="replace")[-2000:]
    assert out.exists()  # the report was written
    planned = [p for p in clarifying.prompts if p.startswith(plan.SYSTEM.splitlines()[0])]
    assert planned


def test_reply_cancel_ends_a_plan_review_as_cancelled_and_keeps_its_work(
    web_process: str, tmp_path: Path
) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")}
    out = tmp_path / "report.md"
    asked = cli(
        "run",
        QUESTION,
        *("--model", "none", "--review-plan"),
        *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
        *("--run-id", "plan-c", "--out", str(out)),
        env=env,
    )
    assert asked.returncode == 4, asked.stderr
    assert "deepresearch reply plan-c --cancel" in asked.stderr
    both = cli("reply", "plan-c", "--approve", "--cancel", env=env)
    assert both.returncode == 2 and "give one answer" in both.stderr

    cancelled = cli("reply", "plan-c", "--cancel", env=env)
    assert cancelled.returncode == 1, cancelled.stderr  # the exit code of a cancelled run
    assert "run plan-c cancelled" in cancelled.stderr and "Traceback" not in cancelled.stderr
    assert not out.exists()
    listed = cli("runs", "list", "--json", env=env)
    assert json.loads(listed.stdout.splitlines()[0])["status"] == "cancelled"
    report = cli("report", "plan-c", env=env)
    assert report.returncode == 1 and "run plan-c was cancelled" in report.stderr
    # a cancelled run takes no answer, and is not cancelled twice
    for late in (["--approve"], ["--cancel"]):
        refused = cli("reply", "plan-c", *late, env=env)
        assert refused.returncode == 2 and "was cancelled" in refused.stderr, refused.stderr

    # nothing stored was lost: resuming it shows the same plan again
    again = cli("run", "--resume", "plan-c", env=env)
    assert again.returncode == 4, again.stderr
    assert "The plan. Brief:" in again.stderr and "q1." in again.stderr


def test_reply_cancel_refuses_a_run_that_waits_for_nothing(
    web_process: str, tmp_path: Path
) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")}
    done = cli(
        "run",
        QUESTION,
        "--model",
        "none",
        *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
        *("--run-id", "done-1", "--out", str(tmp_path / "r.md")),
        env=env,
    )
    assert done.returncode in (0, 3), done.stderr
    refused = cli("reply", "done-1", "--cancel", env=env)
    assert refused.returncode == 2 and "not waiting for input" in refused.stderr
    report = cli("report", "done-1", env=env)
    assert report.returncode == 0, report.stderr  # still complete, not cancelled


def test_on_a_terminal_a_plan_review_can_be_cancelled(web_process: str, tmp_path: Path) -> None:
    env = {**os.environ, "DEEPRESEARCH_DATA_DIR": str(tmp_path / "d"), "TERM": "dumb"}
    out = tmp_path / "report.md"
    main, tty = pty.openpty()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deepresearch.cli.app",
            "run",
            QUESTION,
            *("--model", "none", "--review-plan", "--run-id", "plan-t"),
            *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
            *("--out", str(out)),
        ],
        stdin=tty,
        stdout=subprocess.DEVNULL,
        stderr=tty,
        env=env,
    )
    os.close(tty)
    seen = b""
    answered = False
    deadline = time.monotonic() + 240
    while process.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.5)
        if ready:
            try:
                seen += os.read(main, 4096)
            except OSError:
                break
        if not answered and b"cancel the run" in seen:
            os.write(main, b"c\r")
            answered = True
    process.wait(timeout=30)
    with contextlib.suppress(OSError):  # what was written as it ended
        while select.select([main], [], [], 0.5)[0]:
            seen += os.read(main, 65536)
    os.close(main)
    text = seen.decode(errors="replace")
    assert answered, text[-2000:]
    assert process.returncode == 1, text[-2000:]
    assert "run plan-t cancelled" in text
    assert not out.exists()
    report = cli("report", "plan-t", env={"DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")})
    assert report.returncode == 1 and "run plan-t was cancelled" in report.stderr
