"""The finished report's review from the command line (issue 28): ``--review-report``
stops after the audit with exit code 4, lists the report's sentences by id and says how
to answer; ``deepresearch reply --edit FILE`` (a line ``ID: new words`` each) continues
the run in a new process, and an edit its citations do not support is audited away;
``--feedback`` without a writer model is refused (exit 2, the run keeps waiting)."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from .chat_server import SECRET, ChatServer, chat_server  # noqa: F401
from .conftest import cli, offline_args

QUESTION = "If Gallu is a demon Lilu is what?"
UNSUPPORTED = "The Eiffel Tower was painted green in 1999 by 4000 volunteers from Atlantis."


def _events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_review_report_then_an_edit_the_audit_removes(
    web_process: str,
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "d"), "DEEPRESEARCH_MODEL_API_KEY": SECRET}
    out = tmp_path / "report.md"
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    asked = cli(
        "run",
        QUESTION,
        *("--model", "openai:local-model", "--model-base-url", base_url),
        "--review-report",
        *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
        *("--run-id", "report-1", "--out", str(out), "--json-events"),
        env=env,
    )
    assert asked.returncode == 4, asked.stderr
    assert "The report:" in asked.stderr
    assert "deepresearch reply report-1 --approve" in asked.stderr
    assert "--edit FILE" in asked.stderr and "--feedback" in asked.stderr
    assert not out.exists()
    request = next(e for e in _events(asked.stdout) if e["type"] == "input_requested")
    sentences = request["data"]["sentences"]  # type: ignore[index]
    assert len(sentences) >= 2
    for item in sentences:
        assert f"{item['id']}: " in asked.stderr
    first = sentences[0]["id"]

    bad = tmp_path / "bad.txt"
    bad.write_text("this line names no sentence\n")
    refused = cli("reply", "report-1", "--edit", str(bad), env=env)
    assert refused.returncode == 2 and "line 1 of the edit file" in refused.stderr
    unknown = tmp_path / "unknown.txt"
    unknown.write_text("s999: nothing\n")
    refused = cli("reply", "report-1", "--edit", str(unknown), env=env)
    assert refused.returncode == 2 and "no sentence has the id 's999'" in refused.stderr

    edits = tmp_path / "edits.txt"
    edits.write_text(f"# my edits\n{first}: {UNSUPPORTED}\n")
    done = cli("reply", "report-1", "--edit", str(edits), "--json-events", env=env)
    assert done.returncode in (0, 3), done.stderr
    events = _events(done.stdout)
    received = next(e for e in events if e["type"] == "input_received")
    assert received["data"] == {"kind": "report", "action": "edit", "edited": [first]}
    audited = next(e for e in events if e["type"] == "edits_audited")
    assert audited["data"]["removed"] == 1  # type: ignore[index]
    report = out.read_text()
    assert UNSUPPORTED not in report
    assert "review edited 1 sentence(s)" in report


def test_feedback_without_a_model_is_refused_then_approved(
    web_process: str, tmp_path: Path
) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")}
    out = tmp_path / "report.md"
    asked = cli(
        "run",
        QUESTION,
        *("--model", "none", "--review-report"),
        *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
        *("--run-id", "report-2", "--out", str(out)),
        env=env,
    )
    assert asked.returncode == 4, asked.stderr
    assert "--feedback" not in asked.stderr  # no writer: no rewrite offered
    refused = cli("reply", "report-2", "--feedback", "Shorter, please.", env=env)
    assert refused.returncode == 2
    assert "feedback needs a writer model" in refused.stderr
    both = cli("reply", "report-2", "--approve", "--feedback", "x", env=env)
    assert both.returncode == 2 and "give one answer" in both.stderr
    done = cli("reply", "report-2", "--approve", env=env)
    assert done.returncode in (0, 3), done.stderr
    assert out.exists()


def test_on_a_terminal_the_report_is_reviewed_there(
    web_process: str,
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """At a TTY the report's sentences are listed and asked about: an edit typed at the
    prompt is audited like the writer's, and the report is written without it."""
    env = {
        **os.environ,
        "DEEPRESEARCH_MODEL_API_KEY": SECRET,
        "DEEPRESEARCH_DATA_DIR": str(tmp_path / "d"),
        "TERM": "dumb",
    }
    out = tmp_path / "report.md"
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    main, tty = pty.openpty()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deepresearch.cli.app",
            "run",
            QUESTION,
            *("--model", "openai:local-model", "--model-base-url", base_url),
            "--review-report",
            *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
            *("--out", str(out)),
        ],
        stdin=tty,
        stdout=subprocess.DEVNULL,
        stderr=tty,
        env=env,
    )
    os.close(tty)
    seen, step, mark, sentence = b"", 0, 0, b""
    deadline = time.monotonic() + 240
    while process.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.5)
        if ready:
            try:
                seen += os.read(main, 4096)
            except OSError:
                break
        later = seen[mark:]
        if step == 0 and b"[a/e/f/c/l]" in later:
            os.write(main, b"e\r")
            step, mark = 1, len(seen)
        elif step == 1 and b"id (empty: done)" in later:
            found = re.search(rb"\n\s+(s\d+): ", seen)
            assert found is not None, seen.decode(errors="replace")[-2000:]
            sentence = found.group(1)
            os.write(main, sentence + b"\r")
            step, mark = 2, len(seen)
        elif step == 2 and sentence + b":" in later:
            os.write(main, UNSUPPORTED.encode() + b"\r")
            step, mark = 3, len(seen)
        elif step == 3 and b"id (empty: done)" in later:
            os.write(main, b"\r")
            step = 4
    process.wait(timeout=60)
    os.close(main)
    text = seen.decode(errors="replace")
    assert step == 4, text[-2000:]
    assert "The report:" in text
    assert process.returncode == 0, text[-2000:]
    report = out.read_text()
    assert UNSUPPORTED not in report and "review edited 1 sentence(s)" in report
