"""Runs you can find again (issue 18, part 5): ``deepresearch runs list`` shows each run
with its status from its record and its checkpoint, and ``--resume`` takes the report's
path and format and the corpus from the record, so it works from another folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deepresearch.runstatus import run_status

from .conftest import cli

QUESTION = "What are generators?"


def _corpus(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "generators.md").write_text(
        "# Generators\n\nA generator function uses the yield statement to produce a "
        "sequence of values lazily, one value at a time, pausing between them.\n\n"
        "Calling a generator function returns a generator object; next() resumes it "
        "until the following yield statement.\n",
        encoding="utf-8",
    )


def _runs() -> dict[str, dict[str, object]]:
    done = cli("runs", "list", "--json")
    assert done.returncode == 0, done.stderr
    return {row["run_id"]: row for row in map(json.loads, done.stdout.splitlines())}


def test_resume_from_another_folder_writes_where_the_run_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started in project/ with a relative --corpus and --out and --format html, paused;
    resumed from elsewhere/ with no flags: the report is project/out/report.html."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    _corpus(project / "corpus")
    elsewhere.mkdir()
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    monkeypatch.chdir(project)
    first = cli(
        "run", QUESTION, "--model", "none", "--search", "local", "--corpus", "corpus",
        "--min-domains", "1", "--format", "html", "--out", "out/report.html",
        "--run-id", "moved", "--stop-after", "research", env=env,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "paused" in first.stderr
    listed = _runs()["moved"]
    assert listed["status"] == "paused"
    assert listed["out"] == str(project / "out" / "report.html")  # absolute
    assert listed["question"] == QUESTION

    monkeypatch.chdir(elsewhere)
    second = cli("run", "--resume", "moved", env=env)
    assert second.returncode in (0, 3), second.stderr  # a report, or the abort report
    report = project / "out" / "report.html"
    assert report.is_file() and "<html" in report.read_text().lower()
    assert not list(elsewhere.iterdir())  # nothing written where the resume ran
    assert str(report) in second.stderr
    done = _runs()["moved"]
    assert done["status"] == "complete" and done["kind"] in ("extractive", "abort")

    # a flag given again wins over the record
    third = cli("run", "--resume", "moved", "--format", "md", "--out", "again.md", env=env)
    assert third.returncode == second.returncode, third.stderr
    assert (elsewhere / "again.md").read_text().startswith("# ")

    # a binary format is remembered like the others: a resume with no flags writes it again
    binary = cli("run", "--resume", "moved", "--format", "docx", "--out", "again.docx", env=env)
    assert binary.returncode == second.returncode, binary.stderr
    (elsewhere / "again.docx").unlink()
    again = cli("run", "--resume", "moved", env=env)
    assert again.returncode == second.returncode, again.stderr
    assert (elsewhere / "again.docx").read_bytes().startswith(b"PK")  # a zip container


def test_runs_list_says_failed_and_escapes_what_it_shows(tmp_path: Path) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    nothing = tmp_path / "empty"
    nothing.mkdir()
    failed = cli(
        "run", QUESTION, "--model", "none", "--search", "local", "--corpus", str(nothing),
        "--run-id", "nothing-here", env=env,
    )  # fmt: skip
    # an empty corpus: the run ends with an abort report, it does not fail
    assert failed.returncode == 3, failed.stderr
    broken = cli(
        "run", QUESTION, "--model", "none", "--search", "searxng", "--searxng-url",
        "http://127.0.0.1:1", "--run-id", "broken", env=env,
    )  # fmt: skip
    assert broken.returncode == 2, broken.stderr
    # a record written by hand (or by an older version) with terminal controls in it
    records = tmp_path / "data" / "runs"
    (records / "odd.json").write_text(
        json.dumps({"run_id": "odd", "question": "evil \x1b]0;owned\x07 title",
                    "started": "2020-01-01T00:00:00+00:00", "status": "running"})
    )  # fmt: skip
    (records / "not-a-record.json").write_text("{not json")
    done = cli("runs", "list", "--json", env=env)
    listed = {row["run_id"]: row for row in map(json.loads, done.stdout.splitlines())}
    assert listed["nothing-here"]["status"] == "complete"
    assert listed["nothing-here"]["kind"] == "abort"
    assert listed["broken"]["status"] == "failed"
    assert "could not be reached" in str(listed["broken"]["error"])
    assert listed["odd"]["status"] == "unknown"  # no live process, no checkpoint
    assert set(listed) == {"nothing-here", "broken", "odd"}
    table = cli("runs", "list", env={**env, "COLUMNS": "200"})
    assert table.returncode == 0
    assert "\x1b" not in table.stdout and "\\x1b" in table.stdout
    assert table.stdout.index("broken") < table.stdout.index("odd")  # newest first
    assert "--resume" in table.stderr


def test_runs_list_with_no_runs(tmp_path: Path) -> None:
    done = cli("runs", "list")
    assert done.returncode == 0 and "no runs in" in done.stderr


def test_status_rules() -> None:
    assert run_status("running", "complete", alive=True) == "complete"
    assert run_status("running", "pending", alive=True) == "running"
    assert run_status("running", "pending", alive=False) == "paused"  # killed: resumable
    assert run_status("failed", "pending", alive=False) == "failed"
    assert run_status("interrupted", "pending", alive=False) == "paused"
    assert run_status("failed", None, alive=False) == "failed"
    assert run_status(None, None, alive=False) == "unknown"
    # whether a run waits is its checkpoint's to say, not its record's
    assert run_status("awaiting_input", "waiting", alive=False) == "awaiting_input"
    assert run_status("awaiting_input", "pending", alive=False) == "paused"
    assert run_status("running", "waiting", alive=False) == "awaiting_input"


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_reply_that_fails_leaves_one_status_everywhere(tmp_path: Path) -> None:
    """A plan review approved, then the search cannot be reached: the run failed past its
    pause. ``runs list`` and ``report`` both say so (it was listed as awaiting input while
    ``report`` said it had not finished), and say what to do."""
    url = f"http://127.0.0.1:{_closed_port()}"
    asked = cli(
        "run", QUESTION, "--model", "none", "--review-plan", "--search", "searxng",
        "--searxng-url", url, "--allow-host", url.removeprefix("http://"),
        "--depth", "quick", "--run-id", "stuck", "--out", str(tmp_path / "r.md"),
    )  # fmt: skip
    assert asked.returncode == 4, asked.stderr
    assert _runs()["stuck"]["status"] == "awaiting_input"
    waits = cli("report", "stuck")
    assert waits.returncode == 1 and "waits for input" in waits.stderr
    assert "deepresearch reply stuck" in waits.stderr

    replied = cli("reply", "stuck", "--approve")
    assert replied.returncode == 2 and "could not be reached" in replied.stderr
    listed = _runs()["stuck"]
    assert listed["status"] == "failed" and "could not be reached" in str(listed["error"])
    report = cli("report", "stuck")
    assert report.returncode == 1
    assert "run stuck failed: SearXNG" in report.stderr
    assert "deepresearch run --resume stuck" in report.stderr
    # answering it again is refused, says how it stands, and keeps what it failed of
    again = cli("reply", "stuck", "--approve")
    assert again.returncode == 2 and "is not waiting for input" in again.stderr
    assert "run stuck failed: SearXNG" in again.stderr
    assert "could not be reached" in str(_runs()["stuck"]["error"])
