"""``deepresearch library import DIR --collection NAME`` and ``library collection``
(issue 25): your documents searchable beside past research, shown, renamed and removed;
a missing or empty folder, a bad or taken name is one line and exit 2, storing nothing;
and ``--search library`` researches from the library without fetching a page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import cli

GENERATORS = (
    "# Generators\n\nA generator function uses the yield statement to produce a "
    "sequence of values lazily, one value at a time, pausing between them.\n\n"
    "Calling a generator function returns a generator object; next() resumes it "
    "until the following yield statement.\n"
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "generators.md").write_text(GENERATORS, encoding="utf-8")
    (folder / "sub" / "page.html").write_text(
        "<html><head><title>Iterators</title></head><body><article><p>An iterator "
        "object implements the iterator protocol with a next method.</p></article>"
        "</body></html>",
        encoding="utf-8",
    )
    (folder / "broken.pdf").write_bytes(b"not a pdf")
    return folder


def _json(*args: str, env: dict[str, str]) -> list[dict[str, Any]]:
    done = cli("library", *args, "--json", env=env)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _refused(done: Any, needle: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and needle in done.stderr.splitlines()[0]


def test_import_search_show_rename_and_remove(env: dict[str, str], docs: Path) -> None:
    made = cli("library", "import", str(docs), "--collection", "Python Notes", env=env)
    assert made.returncode == 0, made.stderr
    assert "imported 2 documents into collection 'python notes'" in made.stderr
    assert "1 files not readable" in made.stderr
    hits = _json("search", "yield statement", "--collection", "python notes", env=env)
    assert hits and {hit["kind"] for hit in hits} == {"document"}
    assert hits[0]["source"]["url"].endswith("generators.md")
    shown = cli("library", "show", "python notes", env=env)
    assert "collection python notes" in shown.stdout and "2 documents" in shown.stdout
    (listed,) = _json("collection", "list", env=env)
    assert (listed["name"], listed["documents"]) == ("python notes", 2)
    text = cli("library", "search", "iterator protocol", env=env).stdout
    assert "[document]" in text and "collection: python notes" in text

    assert cli("library", "collection", "rename", "python notes", "py", env=env).returncode == 0
    assert _json("search", "iterator", "--collection", "py", env=env)
    assert cli("library", "collection", "rm", "py", env=env).returncode == 0
    assert _json("search", "iterator", env=env) == []
    _refused(cli("library", "collection", "rm", "py", env=env), "no collection 'py'")


def test_bad_imports_are_one_line_and_store_nothing(
    env: dict[str, str], docs: Path, tmp_path: Path
) -> None:
    _refused(cli("library", "import", str(tmp_path / "nope"), "-c", "x", env=env), "not a folder")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "a.bin").write_bytes(b"\x00")
    _refused(cli("library", "import", str(tmp_path / "empty"), "-c", "x", env=env), "no readable")
    _refused(cli("library", "import", str(docs), "-c", "<x>", env=env), "not a collection name")
    assert _json("collection", "list", env=env) == []
    assert cli("library", "import", str(docs), "-c", "x", env=env).returncode == 0
    _refused(cli("library", "import", str(docs), "-c", "X", env=env), "already have")
    _refused(cli("library", "collection", "rename", "nope", "y", env=env), "no collection")
    _refused(cli("library", "search", "a", "--collection", "a;b", env=env), "collection")
    assert [c["documents"] for c in _json("collection", "list", env=env)] == [2]


def test_search_library_researches_from_the_stored_text(
    env: dict[str, str], docs: Path, tmp_path: Path
) -> None:
    assert cli("library", "import", str(docs), "-c", "notes", env=env).returncode == 0
    for path in sorted(docs.rglob("*"), reverse=True):  # gone from disk: nothing to read
        path.unlink() if path.is_file() else path.rmdir()
    out = tmp_path / "report.md"
    ran = cli(
        "run", "What are generators?", "--model", "none", "--search", "library",
        "--min-domains", "1", "--run-id", "lib1", "--out", str(out), env=env,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    report = out.read_text(encoding="utf-8")
    assert "yield statement" in report and "generators.md" in report
    # the run is in the library too, quoting the collection's document
    hits = _json("search", "yield statement", "--run", "lib1", "--kind", "quote", env=env)
    assert hits and hits[0]["source"]["url"].endswith("generators.md")
