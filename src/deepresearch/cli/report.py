"""``deepresearch report RUN_ID``: render a finished run's document again (a research
report, an employer profile: whichever recipe ran it), in any format."""

from __future__ import annotations

from typing import Annotated

import typer

from deepresearch.cli import options
from deepresearch.cli.choices import Format
from deepresearch.cli.common import (
    EXIT_FAILED,
    STDOUT,
    check_output,
    error,
    fail,
    run_id_or_exit,
    say,
    settings_from,
    write_output,
)
from deepresearch.errors import DeepResearchError


def report(
    run_id: Annotated[str, typer.Argument(help="The id of a finished run.")],
    fmt: options.ReportFormat = Format.md,
    out: options.OutFile = None,
) -> None:
    """Print or write the report of a finished run."""
    import asyncio

    from deepresearch.export.formats import render_bytes
    from deepresearch.runner import load_result

    run_id = run_id_or_exit(run_id)
    target = check_output(out, fmt.value)
    settings = settings_from({})
    try:
        recipe, found = asyncio.run(load_result(settings, run_id))
    except DeepResearchError as exc:
        fail(exc)
    if found is None:
        from deepresearch.cli.runs import unfinished
        from deepresearch.records import run_row

        try:  # the status runs list shows, and what to do about it
            row = asyncio.run(run_row(settings, run_id))
        except DeepResearchError as exc:
            fail(exc)
        message, hint = unfinished(
            run_id, None if row is None else row.status, None if row is None else row.error
        )
        error(message, hint, code=EXIT_FAILED)
    write_output(target, render_bytes(recipe, found, fmt.value, pdf_fonts=settings.pdf_fonts))
    if target != STDOUT:
        say(f"wrote {target}")
