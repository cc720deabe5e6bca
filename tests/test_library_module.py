"""``deepresearch.library`` (issue 25), and runs started from the Python library: each
finished one is in ``runs list`` (its record, which the runner now keeps for every local
run: before, only the CLI and MCP wrote one) and in the local library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import deepresearch
from deepresearch import library
from deepresearch.errors import InvalidInput, RunNotFound


def _options(tmp_path: Path) -> dict[str, object]:
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    (corpus / "g.md").write_text(
        "# Generators\n\nPython generators yield values one at a time, which saves memory "
        "when a sequence is long.\n\nA generator function uses the yield keyword.\n"
    )
    return {"model": "none", "search": "local", "corpus_dir": corpus, "data_dir": tmp_path / "d"}


def test_a_run_from_python_is_listed_and_in_the_library(tmp_path: Path) -> None:
    options = _options(tmp_path)
    report = deepresearch.research("What are Python generators?", **options)
    data_dir = tmp_path / "d"

    listed = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", "runs", "list", "--json"],
        capture_output=True,
        text=True,
        env={"DEEPRESEARCH_DATA_DIR": str(data_dir), "PATH": ""},
        check=True,
    )
    (row,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert (row["run_id"], row["status"], row["kind"]) == (report.run_id, "complete", report.kind)
    assert row["question"] == "What are Python generators?"

    hits = library.search("yield values", data_dir=data_dir, kind="quote")
    assert hits and hits[0].run.run_id == report.run_id
    assert hits[0].source is not None and hits[0].source.fetched_at is not None
    assert library.counts(data_dir=data_dir)["runs"] == 1
    assert library.tag(report.run_id, "Python", data_dir=data_dir) == ["python"]
    assert library.search("yield", data_dir=data_dir, tag="python")
    assert library.rename_tag("python", "py", data_dir=data_dir) == 1
    assert [t.tag for t in library.tags(data_dir=data_dir)] == ["py"]
    source = library.show(report.run_id, data_dir=data_dir)
    assert source.quotes >= 1 and source.tags == ["py"]

    library.remove(report.run_id, data_dir=data_dir)
    assert library.search("yield values", data_dir=data_dir) == []
    with pytest.raises(RunNotFound):
        library.show(report.run_id, data_dir=data_dir)


def test_bad_input_raises_before_anything_is_read(tmp_path: Path) -> None:
    data_dir = tmp_path / "d"
    with pytest.raises(InvalidInput, match="empty"):
        library.search("  ", data_dir=data_dir)
    with pytest.raises(InvalidInput, match="longer than"):
        library.search("x" * 10_000, data_dir=data_dir)
    with pytest.raises(InvalidInput, match="unknown search filter 'colour'"):
        library.search("a", data_dir=data_dir, colour="red")
    assert not data_dir.exists()  # nothing opened, nothing written
