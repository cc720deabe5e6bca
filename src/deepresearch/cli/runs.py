"""``deepresearch runs list``: the runs started from the command line in this data folder,
newest first, with what each is now (complete, paused, failed, running, unknown) and where
its report goes. Questions come from users and are shown escaped."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from deepresearch.cli.common import fail, settings_from
from deepresearch.core.sanitize import for_terminal
from deepresearch.errors import DeepResearchError
from deepresearch.runstatus import Status

runs = typer.Typer(help="The runs you started, to find and resume them.", no_args_is_help=True)


@runs.command("list")
def list_(
    json_: Annotated[bool, typer.Option("--json", help="Print the runs as JSON lines.")] = False,
    limit: Annotated[int, typer.Option(min=1, help="Show at most this many (newest first).")] = 50,
) -> None:
    """List runs: id, when it started, status, the question and the report's path."""
    import asyncio

    from deepresearch.records import checkpoint_states, list_run_records, run_rows

    settings = settings_from({})
    records = list_run_records(settings)[:limit]
    try:
        states = asyncio.run(checkpoint_states(settings, [str(r["run_id"]) for r in records]))
    except DeepResearchError as exc:
        fail(exc)
    rows = run_rows(records, states)
    if json_:
        for row in rows:
            typer.echo(json.dumps(row.as_json()))
        return
    if not rows:
        typer.echo(f"no runs in {settings.data_dir}", err=True)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("run", "started", "status", "question", "report"):
        table.add_column(column, overflow="fold")
    for row in rows:
        status = row.status + (f" ({row.kind})" if row.kind and row.status == "complete" else "")
        # Text, never markup: the question is the user's, the error may quote a page
        table.add_row(
            Text(row.run_id),
            Text(row.started[:19].replace("T", " ")),
            Text(status),
            Text(for_terminal(row.question)),
            Text(for_terminal(row.out or "-")),
        )
    Console().print(table)
    if any(row.status in ("paused", "failed") for row in rows):
        typer.echo("continue a paused or failed run with: deepresearch run --resume RUN", err=True)
    if any(row.status == "awaiting_input" for row in rows):
        typer.echo(
            "a run awaiting input: deepresearch run --resume RUN shows what it asks, "
            "deepresearch reply RUN answers it",
            err=True,
        )


def unfinished(run_id: str, status: Status | None, error: str | None) -> tuple[str, str]:
    """What to say of run ``run_id``, which has no report, and what to do: from the
    status ``runs list`` shows (``records.run_status``), so both say the same."""
    resume = f"deepresearch run --resume {run_id}"
    if status == "awaiting_input":
        return (
            f"run {run_id} waits for input; it has no report yet",
            f"{resume} shows what it asks; answer with: deepresearch reply {run_id}",
        )
    if status == "cancelled":
        return (
            f"run {run_id} was cancelled while it waited for input; it has no report",
            f"its work stays stored: {resume} asks again",
        )
    if status == "running":
        return (
            f"run {run_id} is still running",
            "wait for it to finish: deepresearch runs list shows when it is complete",
        )
    if status == "failed":
        return (
            f"run {run_id} failed" + (f": {error}" if error else ""),
            f"fix the cause, then continue it with: {resume}",
        )
    return f"run {run_id} has not finished", f"resume it with: {resume}"
