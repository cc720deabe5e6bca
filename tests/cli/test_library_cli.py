"""``deepresearch library`` (issue 25): a finished run is in the local library at once;
search with filters, show, tag, rename, remove; a bad query, filter or run is one clear
error with exit 2 and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import cli

QUESTION = "What are generators?"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "generators.md").write_text(
        "# Generators\n\nA generator function uses the yield statement to produce a "
        "sequence of values lazily, one value at a time, pausing between them.\n\n"
        "Calling a generator function returns a generator object; next() resumes it "
        "until the following yield statement.\n",
        encoding="utf-8",
    )
    return {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "DEEPRESEARCH_CORPUS_DIR": str(corpus)}


def _lines(*args: str, env: dict[str, str]) -> list[dict[str, Any]]:
    done = cli("library", *args, "--json", env=env)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _refused(done: Any, *needles: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    first = done.stderr.splitlines()[0]
    for needle in needles:
        assert needle in first, done.stderr


def test_a_finished_run_is_searched_tagged_and_removed(env: dict[str, str], tmp_path: Path) -> None:
    ran = cli(
        "run", QUESTION, "--model", "none", "--search", "local", "--min-domains", "1",
        "--run-id", "gen1", "--out", str(tmp_path / "r.md"), env=env,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr

    hits = _lines("search", "yield statement", env=env)
    assert hits and {hit["run"]["run_id"] for hit in hits} == {"gen1"}
    quote = next(hit for hit in hits if hit["kind"] == "quote")
    assert quote["source"]["url"].startswith("file://") and quote["source"]["fetched_at"]
    assert "yield" in quote["text"]
    shown = cli("library", "search", "yield statement", env=env)
    assert "run: gen1" in shown.stdout and "[quote]" in shown.stdout

    tagged = cli("library", "tag", "add", "gen1", "Python", "lazy", env=env)
    assert tagged.returncode == 0 and "lazy, python" in tagged.stderr
    assert _lines("search", "yield", "--tag", "python", "--kind", "quote", env=env)
    assert not _lines("search", "yield", "--tag", "rust", env=env)
    assert not _lines("search", "yield", "--until", "2001-01-01", env=env)
    assert cli("library", "tag", "rename", "python", "py", env=env).returncode == 0
    assert _lines("tag", "list", env=env) == [{"tag": "lazy", "runs": 1}, {"tag": "py", "runs": 1}]
    assert cli("library", "tag", "drop", "lazy", env=env).returncode == 0
    (summary,) = _lines("show", "gen1", env=env)
    assert summary["tags"] == ["py"] and summary["quotes"] >= 1 and summary["sources"]
    page = cli("library", "show", "gen1", "--source", quote_source(env), env=env)
    assert page.returncode == 0 and "yield statement" in page.stdout

    removed = cli("library", "rm", "gen1", env=env)
    assert removed.returncode == 0, removed.stderr
    assert _lines("search", "yield statement", env=env) == []
    _refused(cli("library", "show", "gen1", env=env), "not in your library")
    # the run itself stays: its checkpoint and record
    assert cli("report", "gen1", env=env).returncode == 0


def quote_source(env: dict[str, str]) -> str:
    """The source id of the run's first quote, read from the library's database."""
    import sqlite3

    path = Path(env["DEEPRESEARCH_DATA_DIR"]) / "library.sqlite3"
    with sqlite3.connect(path) as conn:
        (source_id,) = conn.execute("SELECT source_id FROM library_sources LIMIT 1").fetchone()
    return str(source_id)


def test_bad_input_is_one_line_and_exit_2(env: dict[str, str]) -> None:
    _refused(cli("library", "search", "", env=env), "empty")
    _refused(cli("library", "search", "x" * 10_000, env=env), "longer than 500")
    _refused(cli("library", "search", "a", "--kind", "page", env=env), "--kind")
    _refused(cli("library", "search", "a", "--since", "soon", env=env), "not a date")
    _refused(cli("library", "search", "a", "--run", "../../x", env=env), "--run")
    _refused(cli("library", "search", "a", "--limit", "1000", env=env), "--limit")
    _refused(cli("library", "search", "a", "--colour", "red", env=env))
    _refused(cli("library", "show", "run-000000000000", env=env), "not in your library")
    _refused(cli("library", "rm", "run-000000000000", env=env), "not in your library")
    _refused(cli("library", "tag", "add", "run-000000000000", "x", env=env), "not in your")
    _refused(cli("library", "tag", "add", "run-000000000000", "!!", env=env), "not a tag")
    _refused(cli("library", "tag", "rename", "nope", "x", env=env), "no run in your library")
