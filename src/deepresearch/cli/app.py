"""The ``deepresearch`` command. Commands live in their own modules; this one wires them
and maps our errors to exit codes: 0 report written, 1 run failed, 2 usage or
configuration error, 3 nothing reliable found (abort report written)."""

from __future__ import annotations

import typer

from deepresearch.cli.doctor import doctor
from deepresearch.cli.employer import employer
from deepresearch.cli.index import index
from deepresearch.cli.jobs import jobs
from deepresearch.cli.keys import keys
from deepresearch.cli.mcp import mcp
from deepresearch.cli.report import report
from deepresearch.cli.run import run
from deepresearch.cli.serve import serve

app = typer.Typer(
    name="deepresearch",
    help="Research a question: search, read, verify every quote, write a cited report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command(name="run")(run)
app.command(name="doctor")(doctor)
app.command(name="index")(index)
app.command(name="report")(report)
app.command(name="employer")(employer)
app.command(name="serve")(serve)
app.command(name="mcp")(mcp)
app.add_typer(keys, name="keys")
app.add_typer(jobs, name="jobs")


def main() -> None:
    app(prog_name="deepresearch")


if __name__ == "__main__":
    main()
