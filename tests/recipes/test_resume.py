"""An employer run killed with SIGKILL while the judge model is answering resumes from
its last checkpoint (the research reranker): nothing is searched or fetched again, and no
model call that had succeeded is made again. The same test as the research run's
(tests/cli/test_crash_resume.py), on the employer graph."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from deepresearch.recipes.employer import classify, judge, synthesize

from ..cli.chat_server import SECRET, ChatServer
from .conftest import JOB_POSTING
from .test_cli import cli, offline

JUDGE = judge.SYSTEM.splitlines()[0]


def test_kill_9_while_judging_then_resume(
    google_web_process: str, employer_chat_server: ChatServer, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"),
        "DEEPRESEARCH_MODEL_API_KEY": SECRET,
    }
    base_url = f"http://127.0.0.1:{employer_chat_server.server_address[1]}/v1"
    model = ["--model", "openai:local-model", "--model-base-url", base_url]
    employer_chat_server.hold = {JUDGE: 60}  # the judge's reply never comes before the kill
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "deepresearch.cli.app", "employer", "Google",
            "--job-description", str(JOB_POSTING), *model, *offline(google_web_process),
            "--run-id", "run-employer-crash", "--json-events",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    before: list[dict[str, object]] = []
    for line in proc.stdout:
        event = json.loads(line)
        before.append(event)
        if event["type"] == "phase" and event["stage"] == "research_reranker":
            break
    deadline = time.monotonic() + 60
    while JUDGE not in employer_chat_server.prompts:  # the judge's call is in flight
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    searched = [e for e in before if e["type"] == "thought" and e["data"]["kind"] == "tool_call"]  # type: ignore[index]
    fetched = {e["data"]["url"] for e in before if e["type"] == "source_fetched"}  # type: ignore[index]
    assert searched and fetched
    assert employer_chat_server.prompts == [
        classify.SYSTEM.splitlines()[0],
        synthesize.SYSTEM.splitlines()[0],
        JUDGE,
    ]

    employer_chat_server.hold = {}
    out = tmp_path / "profile.json"
    done = cli(
        "--resume", "run-employer-crash", "--json-events", "--format", "json", "--out", str(out),
        env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    after = [json.loads(line) for line in done.stdout.splitlines()]
    assert after[0]["type"] == "run_resumed"
    assert after[0]["data"]["next"] == ["research_reranker"]
    assert after[0]["data"]["question"] == "Google"
    assert after[-1]["type"] == "run_completed"
    assert not [e for e in after if e["type"] == "run_started"]
    # nothing before the checkpoint ran again: no search, no fetch, no Phase 1 or 2 event
    assert not [e for e in after if e["type"] in ("source_fetched", "search_completed")]
    assert not [e for e in after if e["type"] == "thought" and e["data"]["kind"] == "tool_call"]
    assert not [e for e in after if e["stage"] in ("connecting", "deep_research")]
    # only the judge's call, the one that never finished, went to the model again
    assert employer_chat_server.prompts[3:] == [JUDGE]

    result = json.loads(out.read_text())
    assert result["run_id"] == "run-employer-crash"
    assert result["outcome"] == "profile" and result["reranker"]["evaluated_by"] == "judge"
    assert result["phase_2_output"]["synthesized_by"] == "model"
    assert result["usage"]["calls"] == 3  # classify and synthesize from the checkpoint
    assert {e["source_url"] for e in result["evidence"]} - {"input:job-description"} <= fetched
    assert "employer profile written to" in done.stderr


def test_resuming_a_run_of_another_recipe_is_refused(
    google_web_process: str, tmp_path: Path
) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    first = cli(
        "Google", "--model", "none", *offline(google_web_process), "--run-id", "run-emp",
        "--out", str(tmp_path / "p.md"), env=env,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    again = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", "run", "--resume", "run-emp"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )
    assert again.returncode == 2  # a usage error: the run is another recipe's
    assert "run 'run-emp' belongs to recipe 'employer', not 'research'" in again.stderr
    # and a finished employer run resumed is simply its result again, with no work
    done = cli("--resume", "run-emp", "--json-events", "--out", str(tmp_path / "q.md"), env=env)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["type"] for e in events] == ["run_completed"]
    assert (tmp_path / "q.md").read_text() == (tmp_path / "p.md").read_text()
    # and 'deepresearch report' renders it again, like a research run's report
    shown = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", "report", "run-emp"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (tmp_path / "p.md").read_text()
