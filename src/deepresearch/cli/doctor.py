"""``deepresearch doctor``: real checks of what the configuration names
(``deepresearch.cli.diagnose``): a tiny call to each model, a query to each search provider,
the database, the data folder, the corpus index; then a line on the configuration, or with
``--settings`` every resolved setting. Exit 1 when something configured fails. Secrets are
never shown: a key is named by the variable it came from."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import EXIT_FAILED, EXIT_OK, settings_from, use_config_file

if TYPE_CHECKING:
    from deepresearch.cli.diagnose import Check
    from deepresearch.settings import Settings


def doctor(
    config: options.Config = None,
    search: Annotated[
        str | None, typer.Option(help="Check this search provider (or several, comma-separated).")
    ] = None,
    searxng_url: options.SearxngUrl = None,
    corpus: options.Corpus = None,
    model: Annotated[str | None, typer.Option(help="Check this model spec.")] = None,
    model_base_url: options.ModelBaseUrl = None,
    timeout: Annotated[
        float, typer.Option(min=1, max=600, help="Seconds each model and search check may take.")
    ] = 20.0,
    json_: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
    settings_: Annotated[
        bool,
        typer.Option("--settings", help="Also show every resolved setting (secrets never)."),
    ] = False,
) -> None:
    """Check the configuration for real: models, search, database, data folder."""
    import asyncio
    import logging

    from deepresearch.cli.diagnose import run_checks

    # a failed probe is a row of the table, not also a log line
    logging.getLogger("deepresearch").setLevel(logging.ERROR)
    use_config_file(config)
    settings = settings_from(
        {
            "search": search,
            "searxng_url": searxng_url,
            "corpus_dir": corpus,
            "model": model,
            "model_base_url": model_base_url,
        }
    )
    checks = asyncio.run(run_checks(settings, timeout_s=timeout))
    failed = [check for check in checks if check.ok is False]
    if json_:
        shown: dict[str, Any] = {"ok": not failed, "checks": [c.as_json() for c in checks]}
        if settings_:
            shown["settings"] = {name: _shown(name, value) for name, value in settings}
        typer.echo(json.dumps(shown))
    else:
        _print(settings, checks, every_setting=settings_)
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def _print(settings: Settings, checks: list[Check], *, every_setting: bool) -> None:
    """The checks first (what a person came for), then the settings: in a line, or every
    one of them (``--settings``)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    grid = Table(title="checks", show_header=True, header_style="bold")
    grid.add_column("check")
    grid.add_column("ok")
    grid.add_column("detail", overflow="fold")
    grid.add_column("what to do", overflow="fold")
    for check in checks:
        mark = {True: "yes", False: "NO", None: "-"}[check.ok]
        # Text, not markup: details quote URLs, paths and provider messages
        grid.add_row(Text(f"{check.area}: {check.name}"), mark, Text(check.detail), Text(check.fix))
    console.print(grid)
    if every_setting:
        table = Table(title="configuration", show_header=True, header_style="bold")
        table.add_column("setting")
        table.add_column("value")
        for name, value in settings:
            table.add_row(name, Text(_shown(name, value)))
        console.print(table)
    else:
        console.print(Text(_summary(settings)))
    failed = sum(check.ok is False for check in checks)
    console.print(
        f"{failed} check(s) failed" if failed else "everything configured works",
        style="bold red" if failed else "bold green",
    )


#: the settings the one-line summary names: what a run is made of
SUMMARY = ("model", "search", "depth", "data_dir", "database_url")


def _summary(settings: Settings) -> str:
    """The configuration in a line, and how to see all of it on a line of its own (a
    narrow terminal wraps the first, never the command)."""
    named = "; ".join(f"{name} {_shown(name, getattr(settings, name))}" for name in SUMMARY)
    count = len(type(settings).model_fields)
    return f"configuration: {named}\nall {count} settings: deepresearch doctor --settings"


def _shown(name: str, value: Any) -> str:
    """A setting's value for the table; a secret as where it came from, never itself."""
    from pydantic import SecretStr

    from deepresearch.cli.diagnose import key_origin
    from deepresearch.settings_values import env_names

    if isinstance(value, SecretStr):
        if not value.get_secret_value():
            return "not set"
        origin = key_origin(env_names(name))
        return f"set, from {origin}" if origin else "set"
    if value is None:
        return "-"
    if name == "database_url":  # postgresql://user:password@host/db: not the password
        return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", str(value))
    return str(value)
