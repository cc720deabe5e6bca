"""A run killed with SIGKILL in the middle of writing resumes from its last checkpoint:
nothing it fetched is fetched again, and no model call that had succeeded is paid again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from deepresearch.recipes.research.stages import (
    audit,
    compress,
    intake,
    plan,
    reflect,
    sections,
    write,
)

from .chat_server import SECRET, ChatServer
from .conftest import cli, offline_args

STAGES = {
    "intake": intake,
    "plan": plan,
    "summarize": compress,
    "reflect": reflect,
    "write": write,
    "audit": audit,
}


def test_kill_9_while_writing_then_resume(
    web_process: str, chat_server: ChatServer, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"),
        "DEEPRESEARCH_MODEL_API_KEY": SECRET,
    }
    model = [
        "--model",
        "openai:local-model",
        "--model-base-url",
        f"http://127.0.0.1:{chat_server.server_address[1]}/v1",
    ]
    chat_server.write_delay_s = 60  # the writer's reply never comes before the kill
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deepresearch.cli.app",
            "run",
            "If Gallu is a demon Lilu is what?",
            *model,
            *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
            "--run-id",
            "run-crash",
            "--json-events",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    before: list[dict[str, object]] = []
    for line in proc.stdout:
        event = json.loads(line)
        before.append(event)
        if event["type"] == "stage_started" and event["stage"] == "write":
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    fetched = {e["data"]["url"] for e in before if e["type"] == "source_fetched"}  # type: ignore[index]
    assert fetched
    calls_before = len(chat_server.prompts)

    chat_server.write_delay_s = 0
    out = tmp_path / "r.json"
    done = cli(
        "run",
        "--resume",
        "run-crash",
        "--json-events",
        "--format",
        "json",
        "--out",
        str(out),
        env=env,
    )
    assert done.returncode == 0, done.stderr
    after = [json.loads(line) for line in done.stdout.splitlines()]
    assert after[0]["type"] == "run_resumed" and after[0]["data"]["next"] == ["write"]
    assert not [e for e in after if e["type"] == "source_fetched"]  # nothing fetched again
    # only the stages after the checkpoint called the model again: the writer's outline (the
    # call that never finished), its sections and the audit's judge; nothing before them was
    # paid twice
    again = chat_server.prompts[calls_before:]
    first_lines = {name: module.SYSTEM.splitlines()[0] for name, module in STAGES.items()}
    assert again.count(first_lines["write"]) == 1
    assert set(again) <= {
        first_lines["write"],
        first_lines["audit"],
        audit.BATCH_SYSTEM.splitlines()[0],  # a few sentences a call, past the judge's slots
        write.FINDINGS_SYSTEM.splitlines()[0],
        sections.SECTION_SYSTEM.splitlines()[0],
        sections.REPAIR_SYSTEM.splitlines()[0],
    }
    report = json.loads(out.read_text())
    assert report["kind"] == "synthesized" and report["sources"]
    assert {s["url"] for s in report["sources"]} <= fetched
