"""``deepresearch report RUN_ID``: render a finished run's report again, in any format."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli.common import EXIT_FAILED, fail, settings_from
from deepresearch.cli.output import check_destination, deliver, report_bytes
from deepresearch.cli.run import Format
from deepresearch.errors import DeepResearchError
from deepresearch.runner import load_report


def report(
    run_id: Annotated[str, typer.Argument(help="The id of a finished run.")],
    fmt: Annotated[Format, typer.Option("--format", help="Report format.")] = Format.md,
    out: Annotated[
        Path | None, typer.Option(help="Write here instead of stdout (pdf and docx need it).")
    ] = None,
) -> None:
    """Print or write the report of a finished run."""
    check_destination(fmt.value, out)
    settings = settings_from({})
    try:
        found = asyncio.run(load_report(settings, run_id))
    except DeepResearchError as exc:
        fail(exc)
    if found is None:
        typer.echo(
            f"error: run {run_id} has not finished; resume it with --resume {run_id}", err=True
        )
        raise typer.Exit(EXIT_FAILED)
    written = deliver(report_bytes(found, fmt.value, settings), out)
    if written is not None:
        typer.echo(f"wrote {written}", err=True)
