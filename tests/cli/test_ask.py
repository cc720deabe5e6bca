"""``deepresearch ask RUN_ID "..."`` as a user runs it: real processes, real HTTP on
loopback, ``--model none``. The follow-up runs with the options its run was started with."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import cli, offline_args

FIRST = "Are Christopher Nolan and Sathish Kalathil both film directors?"
FOLLOW = "Which films has Christopher Nolan directed?"


def test_ask_follows_up_a_finished_run(web_process: str, tmp_path: Path) -> None:
    first = cli(
        "run",
        FIRST,
        *offline_args(web_process),
        "--model",
        "none",
        "--run-id",
        "run-one",
        "--out",
        str(tmp_path / "one.md"),
    )
    assert first.returncode == 0, first.stderr
    out = tmp_path / "two.json"
    done = cli(
        "ask", "run-one", FOLLOW, "--run-id", "run-two", "--format", "json", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "turn 2 of thread run-one" in done.stderr
    report = json.loads(out.read_text())
    assert report["run_id"] == "run-two"
    assert report["followup"]["root"] == "run-one" and report["followup"]["topic_shift"] is False
    assert report["followup"]["reused_evidence"] > 0
    assert "Follow-up 2 in thread run-one" in report["markdown"]

    third = cli("ask", "run-two", "Where is Leland, North Carolina?", "--out", "-")
    assert third.returncode == 0, third.stderr
    assert "turn 3 of thread run-one" in third.stderr
    assert "researched afresh" in third.stdout

    # every report format works for a follow-up too, as for a run: a binary one included
    word = tmp_path / "four.docx"
    fourth = cli("ask", "run-two", FOLLOW, "--format", "docx", "--out", str(word))
    assert fourth.returncode == 0, fourth.stderr
    assert word.read_bytes().startswith(b"PK")  # a zip: the DOCX container


def test_ask_refuses_what_it_cannot_follow_up(tmp_path: Path) -> None:
    missing = cli("ask", "run-nope", FOLLOW)
    assert missing.returncode != 0 and "no run 'run-nope'" in missing.stderr
    assert "Traceback" not in missing.stderr
    bad = cli("ask", "../etc", FOLLOW)
    assert bad.returncode == 2 and "not a run id" in bad.stderr
    empty = cli("ask", "run-one", "   ")
    assert empty.returncode == 2
    assert not (tmp_path / "data" / "runs").exists() or not list(
        (tmp_path / "data" / "runs").iterdir()
    )
