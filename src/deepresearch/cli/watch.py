"""``deepresearch watch add|list|show|pause|resume|rm|run-now``: watches (issue 25,
docs/watches.md) in the service's database, like ``deepresearch keys``: the commands
read and write the database (``--database-url``, default the data folder's SQLite) and
the scheduler inside ``deepresearch serve`` and ``deepresearch worker`` runs the due
ones on its next tick. The watches are the local owner's (the service's requests
without a key), or ``--key``'s. Bad input (a schedule that cannot be read or runs too
often, too many watches, an unknown watch or thread) is one line and exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from deepresearch.cli import options
from deepresearch.cli.common import error, fail, question_or_exit, say, settings_from
from deepresearch.core.sanitize import for_terminal
from deepresearch.errors import DeepResearchError

if TYPE_CHECKING:  # SQLAlchemy loads when a command runs, not for --help
    from deepresearch.models.watch import Watch
    from deepresearch.service.store import JobStore
    from deepresearch.settings import Settings

watch = typer.Typer(
    help="Re-run a question on a schedule and report what changed (see docs/watches.md).",
    no_args_is_help=True,
)

Owner = Annotated[
    str | None,
    typer.Option("--key", help="The API key id whose watches these are (default: local)."),
]
WatchId = Annotated[str, typer.Argument(help="The watch's id (from 'watch list').")]


def _owner(key: str | None) -> str:
    """Whose watches: ``--key``'s, else the local user's (the service's key-less caller)."""
    from deepresearch.models.library import LOCAL_OWNER

    return key or LOCAL_OWNER


def _open(database_url: str | None) -> tuple[JobStore, Settings]:
    from deepresearch.service.db import open_database
    from deepresearch.service.store import JobStore

    settings = settings_from({"database_url": database_url})
    try:
        return JobStore(open_database(settings)), settings
    except DeepResearchError as exc:
        fail(exc)


def _line(item: Watch) -> str:
    last = f"last run {item.last_run}" if item.last_run else "not run yet"
    due = f"next {item.next_due:%Y-%m-%d %H:%M} UTC"
    if item.deferred_until is not None:  # held back by the key's submission rate limit
        due = f"deferred to {item.deferred_until:%Y-%m-%d %H:%M} UTC (rate limit)"
    return f"{item.id}\t{item.state}\t{item.schedule}\t{due}\t{last}\t{for_terminal(item.question)}"


@watch.command("add")
def add(
    question: Annotated[str, typer.Argument(help="The question to re-run.")],
    every: Annotated[str | None, typer.Option(help="30m, 6h, 1d or 1w.")] = None,
    cron: Annotated[str | None, typer.Option(help="A cron expression, e.g. '0 7 * * *'.")] = None,
    depth: options.DepthOption = None,
    thread: Annotated[
        str | None, typer.Option(help="A finished job the first run is compared with.")
    ] = None,
    webhook: Annotated[
        str | None,
        typer.Option(help="POST each change report here (https, or http to 127.0.0.1), signed."),
    ] = None,
    key: Owner = None,
    database_url: options.DatabaseUrl = None,
) -> None:
    """Add a watch; its first run starts at the scheduler's next tick."""
    from deepresearch.watches import Desk

    text = question_or_exit(question)
    store, settings = _open(database_url)
    desk = Desk(store, _owner(key), settings.max_watches_per_key, settings.watch_min_interval_s)
    try:  # the Python library's and MCP's rules: nothing stored when one refuses
        item = desk.add(
            text,
            every,
            cron,
            depth=depth.value if depth else None,
            thread=thread,
            webhook=webhook,
        )
    except DeepResearchError as exc:  # a refusal of the user's input: exit 2
        error(exc.message, exc.hint)
    typer.echo(item.id)
    say(f"watching ({item.schedule}): 'deepresearch serve' or a worker runs it")
    if item.webhook_secret:
        say(f"webhook signing secret (shown once): {item.webhook_secret}")


@watch.command("list")
def list_(key: Owner = None, database_url: options.DatabaseUrl = None) -> None:
    """List the watches: id, state, schedule, next due time, last run, question."""
    for item in _open(database_url)[0].list_watches(_owner(key)):
        typer.echo(_line(item))


@watch.command("show")
def show(
    watch_id: WatchId,
    fmt: Annotated[str, typer.Option("--format", help="md, html or json.")] = "md",
    out: options.OutFile = None,
    key: Owner = None,
    database_url: options.DatabaseUrl = None,
) -> None:
    """The watch, its runs, and its last change report (in --format)."""
    from deepresearch.export.formats import render_document
    from deepresearch.export.watch_report import change_document, change_json

    if fmt not in ("md", "html", "json"):
        error(f"--format {fmt!r}: choose md, html or json")
    store = _open(database_url)[0]
    item = _owned(store, watch_id, _owner(key))
    runs = store.watch_runs(item.id)
    say(_line(item))
    for run in runs:
        say(f"  {run.due_at:%Y-%m-%d %H:%M} UTC\t{run.job_id}\t{run.summary or run.status}")
    report = next((run.report for run in runs if run.report is not None), None)
    if report is None:
        say(f"watch {watch_id} has no change report yet")
        return
    body = render_document(change_document(report), fmt, lambda: change_json(report))
    if out is None:
        typer.echo(body.decode("utf-8"))
    else:
        Path(out).write_bytes(body)


def _owned(store: JobStore, watch_id: str, owner: str) -> Watch:
    item = store.get_watch(watch_id, owner)
    if item is None:
        error(f"no watch {watch_id!r}", "see 'deepresearch watch list'")
    return item


@watch.command("pause")
def pause(watch_id: WatchId, key: Owner = None, database_url: options.DatabaseUrl = None) -> None:
    """Pause a watch: no run starts until it is resumed."""
    store = _open(database_url)[0]
    if store.set_watch_state(watch_id, _owner(key), "paused", None) is None:
        error(f"no watch {watch_id!r}", "see 'deepresearch watch list'")
    typer.echo(f"paused {watch_id}")


@watch.command("resume")
def resume(watch_id: WatchId, key: Owner = None, database_url: options.DatabaseUrl = None) -> None:
    """Resume a paused watch from its next due time."""
    from deepresearch.core.watch_schedule import next_due, parse_stored

    store = _open(database_url)[0]
    item = _owned(store, watch_id, _owner(key))
    due = next_due(parse_stored(item.schedule), store.clock())
    store.set_watch_state(watch_id, _owner(key), "active", due)
    typer.echo(f"resumed {watch_id}: next {due:%Y-%m-%d %H:%M} UTC")


@watch.command("rm")
def remove(watch_id: WatchId, key: Owner = None, database_url: options.DatabaseUrl = None) -> None:
    """Remove a watch and its change reports (the jobs it ran stay)."""
    if not _open(database_url)[0].remove_watch(watch_id, _owner(key)):
        error(f"no watch {watch_id!r}", "see 'deepresearch watch list'")
    typer.echo(f"removed {watch_id}")


@watch.command("run-now")
def run_now(watch_id: WatchId, key: Owner = None, database_url: options.DatabaseUrl = None) -> None:
    """Make a watch due now: the scheduler runs it on its next tick."""
    store = _open(database_url)[0]
    _owned(store, watch_id, _owner(key))
    if store.due_now(watch_id, _owner(key)) is None:
        error(f"watch {watch_id!r} is paused", f"deepresearch watch resume {watch_id}")
    typer.echo(f"{watch_id} is due now")
