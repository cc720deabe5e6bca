"""What ``run``, ``ask``, ``employer`` and ``reply`` share to run a recipe at a terminal:
where its report goes, the notes kept in its run record as it goes, the live view, and
how an interruption or a failure ends the command."""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import typer

from deepresearch.cli.choices import Format
from deepresearch.cli.common import (
    EXIT_INTERRUPTED,
    STDOUT,
    check_output,
    error,
    fail,
    say,
    shown,
    write_output,
)
from deepresearch.export import extension

if TYPE_CHECKING:  # the runner and the live view load when a run starts, not for --help
    from deepresearch.errors import DeepResearchError
    from deepresearch.settings import Settings

T = TypeVar("T")
#: notes a field of the run's record (``status=``, ``finished=``, ...)
Remember = Callable[..., None]


def check_target(
    out: Path | None,
    fmt: Format,
    json_events: bool,
    *,
    default: str = "report",
    noun: str = "report",
) -> Path:
    """Where the report goes (``out``, else ``<default>.<extension>``: ``report.tex`` for
    latex, ``report.bib`` for bibtex); exit 2 before any
    work if it could not be written there (``check_output``: the file, and the rules for
    a binary format). A file named with ``--out`` is overwritten, as asked; the default
    name never overwrites: when it is taken, the first free ``<default>-N.<extension>`` is
    used, and ``written`` says so once the report is there (not before: the command may
    still stop on another mistake)."""
    if out == STDOUT and json_events:
        error("--out - and --json-events both want standard output", f"write the {noun} to a file")
    if out is None:
        named = Path(f"{default}.{extension(fmt.value)}")
        out = free_name(named)
        if out != named:
            _INSTEAD_OF[out] = named
    return check_output(out, fmt.value)


#: the free names this command chose, and the default name each stands for (a command
#: runs once per process)
_INSTEAD_OF: dict[Path, Path] = {}


def free_name(path: Path) -> Path:
    """``path``, or when a file is there the first ``<stem>-N<suffix>`` (N from 2) that
    is not."""
    number = 2
    free = path
    while free.exists() or free.is_symlink():
        free = path.with_name(f"{path.stem}-{number}{path.suffix}")
        number += 1
    return free


def remember(settings: Settings, run_id: str, **fields: object) -> None:
    """Note in the run's record how it goes; a record that cannot be written costs the
    run nothing (``runs list`` shows what the record had)."""
    from deepresearch.records import update_run_record

    try:
        update_run_record(settings, run_id, **fields)
    except OSError as exc:
        say(f"warning: could not update the run record of {run_id} ({exc.strerror or exc})")


def forget(**fields: object) -> None:
    """The notes of a run that has no record (started by the library): none kept."""


def recorder(settings: Settings, run_id: str, *, kept: bool) -> Remember:
    """How the run's notes are kept: in its record, or (none kept) nowhere."""
    return partial(remember, settings, run_id) if kept else forget


def note_started(remember: Remember, target: Path, fmt: Format) -> None:
    """Note where and how the report is to be written, and that this process runs it."""
    remember(
        out=str(target) if target == STDOUT else str(target.absolute()),
        format=fmt.value,
        status="running",
        pid=os.getpid(),
    )


def remembered_options(record: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The options a run was started with (its record), under those given again now."""
    remembered = record.get("options")
    return {**remembered, **given} if isinstance(remembered, dict) else given


def live(json_events: bool, start: Callable[[list[Any]], Coroutine[Any, Any, T]]) -> T:
    """Run ``start(sinks)`` to its end with the live view (or NDJSON events) shown."""
    import asyncio

    from deepresearch.cli.live import Renderer

    renderer = Renderer(json_events=json_events)
    with renderer:
        return asyncio.run(start([renderer]))


def failed(remember: Remember, settings: Settings, exc: DeepResearchError) -> NoReturn:
    """Note the failure (secrets redacted) and exit with it."""
    from deepresearch.llm.redact import redact
    from deepresearch.records import now

    remember(status="failed", error=redact(exc.message, settings.secrets()), finished=now())
    fail(exc)


def interrupted(remember: Remember, resume: str) -> NoReturn:
    """Ctrl-C: note it, say how to go on (``resume``: the command), exit 130."""
    from deepresearch.records import now

    remember(status="interrupted", finished=now())
    typer.echo(err=True)
    say(f"interrupted; resume with: {resume}")
    raise typer.Exit(EXIT_INTERRUPTED) from None


def write_report(target: Path, data: str | bytes, run_id: str) -> None:
    """Write the report, or say where the saved run is if it cannot be written."""
    write_output(target, data, saved=f"the run is saved: deepresearch report {run_id} --out FILE")


def written(what: str, target: Path, run_id: str) -> None:
    """Say what was written where, for which run (and why not to the default name)."""
    say(f"{what} written to {shown(target)} (run {run_id})")
    named = _INSTEAD_OF.get(target)
    if named is not None:
        say(f"{named} was there already and is left as it was (--out {named} overwrites it)")
