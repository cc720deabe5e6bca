"""Writing a report in the format asked for: text formats (md, html, json) and binary ones
(pdf, docx). ``--out -`` means standard output; a binary format goes there only when it
was asked for explicitly and standard output is not a terminal."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from deepresearch.cli.common import EXIT_USAGE
from deepresearch.export import BINARY_FORMATS
from deepresearch.export.fonts import find_fonts
from deepresearch.export.formats import Result, result_bytes
from deepresearch.settings import Settings

STDOUT = Path("-")


def report_bytes(result: Result, fmt: str, settings: Settings) -> bytes:
    """A report or employer profile in ``fmt``, PDFs with the configured fonts."""
    fonts = find_fonts(settings.pdf_fonts) if fmt == "pdf" else ()
    return result_bytes(result, fmt, fonts=fonts)


def check_destination(fmt: str, out: Path | None) -> None:
    """Refuse, before any work is done, to send a binary format to a terminal (or to
    standard output at all unless ``--out -`` asked for it)."""
    if fmt not in BINARY_FORMATS:
        return
    if out is None:
        typer.echo(
            f"error: {fmt.upper()} is a binary format; pass --out FILE "
            f"(or --out - to send it to a pipe)",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)
    if out == STDOUT and sys.stdout.isatty():
        typer.echo(
            f"error: not writing a binary {fmt.upper()} to the terminal; redirect standard "
            f"output to a file or a program, or pass --out FILE",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)


def deliver(data: bytes, out: Path | None) -> Path | None:
    """Write ``data`` to ``out`` (standard output when None or ``-``); the path written."""
    if out is None or out == STDOUT:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return out
