"""``deepresearch doctor``: the resolved configuration, then real checks of what it names
(``deepresearch.cli.diagnose``): a tiny call to each model, a query to each search provider,
the database, the data folder, the corpus index. Exit 1 when something configured fails.
Secrets are never shown: a key is named by the variable it came from."""

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
        typer.echo(json.dumps({"ok": not failed, "checks": [c.as_json() for c in checks]}))
    else:
        _print(settings, checks)
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def _print(settings: Settings, checks: list[Check]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    table = Table(title="configuration", show_header=True, header_style="bold")
    table.add_column("setting")
    table.add_column("value")
    for name in type(settings).model_fields:
        table.add_row(name, Text(_shown(name, getattr(settings, name))))
    console.print(table)

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
    failed = sum(check.ok is False for check in checks)
    console.print(
        f"{failed} check(s) failed" if failed else "everything configured works",
        style="bold red" if failed else "bold green",
    )


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
