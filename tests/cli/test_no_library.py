"""``--no-library`` as a user runs it (issue 25, reuse): a second run of a question
reuses what the first verified (a ``library_reused`` event, sources marked in the JSON
report), and ``run --no-library`` and ``ask --no-library`` reuse nothing, the option kept
in the run's record."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .conftest import cli, offline_args

QUESTION = "If Gallu is a demon Lilu is what?"


def _events(stdout: str) -> list[str]:
    return [json.loads(line)["type"] for line in stdout.splitlines()]


def test_no_library_turns_reuse_off_for_one_run(web_process: str, tmp_path: Path) -> None:
    args = [*offline_args(web_process), "--model", "none", "--json-events"]
    first = cli("run", QUESTION, *args, "--run-id", "run-one", "--out", str(tmp_path / "1.md"))
    assert first.returncode == 0, first.stderr
    assert "library_reused" not in _events(first.stdout)  # nothing kept yet

    out = tmp_path / "2.json"
    again = cli("run", QUESTION, *args, "--format", "json", "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "library_reused" in _events(again.stdout)
    report = json.loads(out.read_text())
    assert report["library"]["reused"]
    assert {s["library_run"] for s in report["sources"]} >= {"run-one"}

    off = cli(
        "run",
        QUESTION,
        *args,
        "--no-library",
        "--run-id",
        "run-off",
        "--out",
        str(tmp_path / "3.md"),
    )
    assert off.returncode == 0, off.stderr
    assert "library_reused" not in _events(off.stdout)
    data_dir = Path(os.environ["DEEPRESEARCH_DATA_DIR"])
    record = json.loads((data_dir / "runs" / "run-off.json").read_text())
    assert record["options"]["use_library"] is False

    follow = cli(
        "ask",
        "run-one",
        "Who is Lilu?",
        "--no-library",
        "--json-events",
        "--out",
        str(tmp_path / "4.md"),
    )
    assert follow.returncode == 0, follow.stderr
    assert "library_reused" not in _events(follow.stdout)
