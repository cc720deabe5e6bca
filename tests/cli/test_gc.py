"""``deepresearch gc`` as a user runs it (real processes, ``--model none``, the offline
web): a finished run compacted to its last checkpoint still renders its report, is
followed up, replays and is evaluated; a run waiting for its plan review keeps every
checkpoint and is answered afterwards; ``--dry-run`` changes nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from deepresearch.cli.common import EXIT_WAITING

from .conftest import cli, offline_args

QUESTION = "If Gallu is a demon Lilu is what?"


def _checkpoints(data: Path) -> dict[str, int]:
    with sqlite3.connect(data / "checkpoints.sqlite3") as conn:
        rows = conn.execute(
            "SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id"
        ).fetchall()
    return {str(thread): int(count) for thread, count in rows}


def test_gc_compacts_finished_runs_only_and_they_still_serve_everything(
    web_process: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    env = {"DEEPRESEARCH_DATA_DIR": str(data)}
    first = tmp_path / "first.json"
    done = cli(
        "run", QUESTION, *offline_args(web_process), "--model", "none", "--format", "json",
        "--out", str(first), "--run-id", "finished-run", env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    waiting = cli(
        "run", QUESTION, *offline_args(web_process), "--model", "none", "--review-plan",
        "--run-id", "paused-run", env=env,
    )  # fmt: skip
    assert waiting.returncode == EXIT_WAITING, waiting.stderr
    before = _checkpoints(data)
    assert before["finished-run"] > 1 and before["paused-run"] > 1

    dry = cli("gc", "--dry-run", env=env)
    assert dry.returncode == 0, dry.stderr
    assert f"would drop {before['finished-run'] - 1} earlier checkpoints of 1 finished" in (
        dry.stdout
    )
    assert _checkpoints(data) == before

    collected = cli("gc", env=env)
    assert collected.returncode == 0, collected.stderr
    after = _checkpoints(data)
    assert after == {"finished-run": 1, "paused-run": before["paused-run"]}

    # the report renders as before
    shown = cli("report", "finished-run", "--format", "json", env=env)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == json.loads(first.read_text(encoding="utf-8"))
    # it evaluates
    judged = cli("eval", "finished-run", "--judge-model", "none", "--format", "json", env=env)
    assert judged.returncode == 0, judged.stderr
    assert "citation_precision" in json.loads(judged.stdout)
    # it is followed up
    asked = cli(
        "ask", "finished-run", "Which texts mention the lilu?", *offline_args(web_process),
        "--model", "none", "--run-id", "followup-run", "--out", str(tmp_path / "two.md"),
        env=env,
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    # it replays from its recording, byte for byte
    replayed = cli("replay", "finished-run", "--format", "json", env=env)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == json.loads(first.read_text(encoding="utf-8"))
    # the paused run is answered and finishes
    answered = cli("reply", "paused-run", "--approve", env=env)
    assert answered.returncode == 0, answered.stderr
