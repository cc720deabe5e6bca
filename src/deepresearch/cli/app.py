"""The ``deepresearch`` command. Commands live in their own modules; this one wires them.
Exit codes (the table is in ``deepresearch.cli.common`` and README.md): 0 done, 1 the run
failed, 2 usage or configuration error, 3 nothing reliable found (abort report written),
130 interrupted. An error nobody foresaw is one line too, never a traceback (unless
``DEEPRESEARCH_DEBUG`` is set).

Starting is cheap: every command imports what it needs (LangGraph, LangChain, FastAPI,
the recipes) when it runs, so ``--help`` and ``--version`` load none of it
(``tests/test_startup.py`` guards the set of modules)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli.ask import ask
from deepresearch.cli.common import EXIT_FAILED, fail
from deepresearch.cli.doctor import doctor
from deepresearch.cli.employer import employer
from deepresearch.cli.evaluate import evaluate
from deepresearch.cli.gc import gc
from deepresearch.cli.index import index
from deepresearch.cli.init import init
from deepresearch.cli.jobs import jobs
from deepresearch.cli.keys import keys
from deepresearch.cli.library import library
from deepresearch.cli.mcp import mcp
from deepresearch.cli.replay import record, replay
from deepresearch.cli.reply import reply
from deepresearch.cli.report import report
from deepresearch.cli.run import run
from deepresearch.cli.runs import runs
from deepresearch.cli.serve import serve
from deepresearch.cli.watch import watch
from deepresearch.cli.worker import worker
from deepresearch.errors import DeepResearchError

app = typer.Typer(
    name="deepresearch",
    help="Research a question: search, read, verify every quote, write a cited report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"deepresearch {version()}")
        raise typer.Exit()


@app.callback()
def _options(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Research a question: search, read, verify every quote, write a cited report."""


def version() -> str:
    """The installed package's version (its metadata), else the source tree's."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("deepresearch")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from deepresearch.version import __version__

        return __version__


app.command(name="init")(init)
app.command(name="run")(run)
app.command(name="ask")(ask)
app.command(name="reply")(reply)
app.command(name="doctor")(doctor)
app.command(name="index")(index)
app.command(name="report")(report)
app.command(name="replay")(replay)
app.command(name="record")(record)
app.command(name="eval")(evaluate)
app.command(name="employer")(employer)
app.command(name="serve")(serve)
app.command(name="mcp")(mcp)
app.command(name="worker")(worker)
app.command(name="gc")(gc)
app.add_typer(keys, name="keys")
app.add_typer(jobs, name="jobs")
app.add_typer(runs, name="runs")
app.add_typer(library, name="library")
app.add_typer(watch, name="watch")


def main() -> None:
    from deepresearch.envfile import load_env_file

    try:
        # before the flags are read: DEEPRESEARCH_API_KEY and the like may be in .env
        load_env_file()
    except DeepResearchError as exc:
        try:
            fail(exc)
        except typer.Exit as stop:
            sys.exit(stop.exit_code)
    try:
        app(prog_name="deepresearch")
    except Exception as exc:  # a bug: say where, not a traceback (messages may hold secrets)
        if os.environ.get("DEEPRESEARCH_DEBUG"):
            raise
        import traceback

        frame = traceback.extract_tb(exc.__traceback__)[-1]
        typer.echo(
            f"error: deepresearch failed unexpectedly ({type(exc).__name__} in "
            f"{Path(frame.filename).name}:{frame.lineno})",
            err=True,
        )
        typer.echo(
            "hint: this is a bug; please report it with the command you ran "
            "(DEEPRESEARCH_DEBUG=1 shows the traceback)",
            err=True,
        )
        sys.exit(EXIT_FAILED)


if __name__ == "__main__":
    main()
