"""``deepresearch report RUN_ID``: render a finished run's document again (a research
report, an employer profile: whichever recipe ran it), in any format."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli.common import EXIT_FAILED, fail, settings_from
from deepresearch.cli.run import Format
from deepresearch.errors import DeepResearchError
from deepresearch.runner import load_result


def report(
    run_id: Annotated[str, typer.Argument(help="The id of a finished run.")],
    fmt: Annotated[Format, typer.Option("--format", help="Report format.")] = Format.md,
    out: Annotated[Path | None, typer.Option(help="Write here instead of stdout.")] = None,
) -> None:
    """Print or write the report of a finished run."""
    settings = settings_from({})
    try:
        recipe, found = asyncio.run(load_result(settings, run_id))
    except DeepResearchError as exc:
        fail(exc)
    if found is None:
        typer.echo(
            f"error: run {run_id} has not finished; resume it with --resume {run_id}", err=True
        )
        raise typer.Exit(EXIT_FAILED)
    text = recipe.render(found, fmt.value)
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out}", err=True)
