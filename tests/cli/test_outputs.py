"""What the small commands print, and where a report goes when no ``--out`` is given
(issue 27): ``index`` says what it indexed in words, a default report name never
overwrites an earlier report, and ``doctor`` shows its checks before the settings."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import cli


def _corpus(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "generators.md").write_text(
        "# Generators\n\nA generator function uses the yield statement to produce a "
        "sequence of values lazily, one value at a time, pausing between them.\n",
        encoding="utf-8",
    )
    return folder


def test_index_says_what_it_indexed_in_words(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    first = cli("index", str(corpus))
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"indexed {corpus}: 1 document (1 new)"
    (corpus / "more.txt").write_text("Coroutines use await to suspend.", encoding="utf-8")
    (corpus / "generators.md").unlink()
    again = cli("index", str(corpus))
    assert "IndexStats" not in again.stdout
    assert (
        again.stdout.strip()
        == f"indexed {corpus}: 1 document (1 new); 1 removed (no longer in the folder)"
    )


def test_the_default_report_name_never_overwrites(tmp_path: Path) -> None:
    """No --out: report.md, then report-2.md (said), never the first one again; an --out
    that names a file overwrites it, as asked."""
    corpus = _corpus(tmp_path / "corpus")
    args = ["--model", "none", "--search", "local", "--corpus", str(corpus), "--min-domains", "1"]
    first = cli("run", "What are generators?", *args, "--run-id", "one")
    assert first.returncode in (0, 3), first.stderr
    earlier = (tmp_path / "report.md").read_text(encoding="utf-8")
    second = cli("run", "What are generators?", *args, "--run-id", "two")
    assert second.returncode in (0, 3), second.stderr
    assert "written to report-2.md" in second.stderr
    assert "report.md was there already and is left as it was" in second.stderr
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == earlier
    assert "Run two:" in (tmp_path / "report-2.md").read_text(encoding="utf-8")
    listed = [json.loads(line) for line in cli("runs", "list", "--json").stdout.splitlines()]
    assert {row["run_id"]: row["out"] for row in listed}["two"] == str(tmp_path / "report-2.md")
    named = cli("run", "What are generators?", *args, "--run-id", "three", "--out", "report.md")
    assert named.returncode in (0, 3) and "was there already" not in named.stderr
    assert "Run three:" in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_doctor_shows_its_checks_first_and_settings_when_asked() -> None:
    done = cli("doctor", "--model", "none", "--search", "none", env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.lstrip().startswith("checks")
    assert "configuration: model none; search none" in done.stdout
    assert "doctor --settings" in done.stdout and "temperature" not in done.stdout
    every = cli("doctor", "--model", "none", "--search", "none", "--settings")
    assert every.stdout.index("checks") < every.stdout.index("configuration")
    assert "temperature" in every.stdout
    shown = json.loads(cli("doctor", "--model", "none", "--search", "none", "--json").stdout)
    assert "settings" not in shown
    with_settings = cli("doctor", "--model", "none", "--search", "none", "--json", "--settings")
    assert json.loads(with_settings.stdout)["settings"]["search"] == "none"
