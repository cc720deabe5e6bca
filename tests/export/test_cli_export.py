"""``deepresearch run --format pdf|docx`` and ``deepresearch report RUN --format pdf|docx``,
as the real command in a subprocess: files that open, and binary output sent to standard
output only when asked for (``--out -``) and never to a terminal."""

from __future__ import annotations

import asyncio
import os
import pty
import subprocess
import sys
from pathlib import Path

import bibtexparser
import pytest

from deepresearch.cli.choices import Format
from deepresearch.cli.running import check_target
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.testing.web import OfflineWeb

from .conftest import QUESTION, run_options
from .reading import docx_text, pdf_links, pdf_text


def cli(*args: str, stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=300,
        env=dict(os.environ),
        check=False,
    )


def offline(web: OfflineWeb) -> list[str]:
    """The flags of an offline run on ``web`` (``run`` and ``mcp`` take them alike)."""
    return [
        "--model", "none",
        "--search", "searxng",
        "--searxng-url", web.base_url,
        "--allow-host", web.base_url.removeprefix("http://"),
        "--min-domains", "1",
        "--min-evidence", "1",
    ]  # fmt: skip


def test_run_writes_a_pdf_and_report_writes_a_docx(bee_web: OfflineWeb, tmp_path: Path) -> None:
    pdf = tmp_path / "out" / "bees.pdf"
    done = cli(
        "run",
        QUESTION,
        *offline(bee_web),
        "--depth",
        "quick",
        "--run-id",
        "bees",
        "--format",
        "pdf",
        "--out",
        str(pdf),
    )
    assert done.returncode == 0, done.stderr.decode()
    assert f"report written to {pdf}" in done.stderr.decode()
    text = pdf_text(pdf)
    assert "Honey bees communicate the direction of flowers with the waggle dance" in text
    assert pdf_links(pdf) and all(url.startswith(bee_web.base_url) for url in pdf_links(pdf))

    # the same run again, as DOCX on standard output (a pipe here)
    piped = cli("report", "bees", "--format", "docx", "--out", "-")
    assert piped.returncode == 0, piped.stderr.decode()
    assert piped.stdout.startswith(b"PK")  # a zip container
    assert "waggle dance" in docx_text(piped.stdout)

    docx_file = tmp_path / "bees.docx"
    written = cli("report", "bees", "--format", "docx", "--out", str(docx_file))
    assert written.returncode == 0 and docx_file.read_bytes() == docx_file.read_bytes()
    assert docx_text(docx_file) == docx_text(piped.stdout)


def test_binary_formats_never_go_to_standard_output_unasked_or_to_a_terminal(
    bee_web: OfflineWeb, tmp_path: Path
) -> None:
    # a finished run in this test's data folder (in process: quicker than the command)
    settings = load_settings(**run_options(bee_web, Path(os.environ["DEEPRESEARCH_DATA_DIR"])))
    assert asyncio.run(run_research(QUESTION, settings, run_id="bees2")) is not None

    unasked = cli("report", "bees2", "--format", "pdf")
    assert unasked.returncode == 2 and unasked.stdout == b""
    assert "PDF is a binary format; pass --out FILE" in unasked.stderr.decode()

    main, terminal = pty.openpty()
    try:
        to_tty = cli("report", "bees2", "--format", "pdf", "--out", "-", stdout=terminal)
    finally:
        os.close(terminal)
        os.close(main)
    assert to_tty.returncode == 2
    assert "not writing a binary PDF to the terminal" in to_tty.stderr.decode()

    # a text format still prints as before
    markdown = cli("report", "bees2", "--format", "md")
    assert markdown.returncode == 0 and markdown.stdout.startswith(b"# ")
    # ODT is binary like PDF; LaTeX and the bibliographies are text
    odt = cli("report", "bees2", "--format", "odt")
    assert odt.returncode == 2 and "ODT is a binary format" in odt.stderr.decode()
    bib = cli("report", "bees2", "--format", "bibtex")
    assert bib.returncode == 0
    assert bibtexparser.parse_string(bib.stdout.decode()).entries[0].key == "ref1"
    tex = cli("report", "bees2", "--format", "latex")
    assert tex.returncode == 0 and tex.stdout.startswith(b"\\documentclass")

    # NDJSON events already own standard output
    mixed = cli(
        "run",
        QUESTION,
        *offline(bee_web),
        "--depth",
        "quick",
        "--json-events",
        "--format",
        "pdf",
        "--out",
        "-",
    )
    assert mixed.returncode == 2
    assert b"--out - and --json-events both want standard output" in mixed.stderr


def test_a_report_without_out_is_saved_under_its_formats_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for fmt, name in ((Format.md, "report.md"), (Format.latex, "report.tex")):
        assert check_target(None, fmt, False) == Path(name)
    assert check_target(None, Format.bibtex, False, default="p") == Path("p.bib")
    assert check_target(None, Format.csljson, False) == Path("report.json")
