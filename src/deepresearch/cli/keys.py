"""``deepresearch keys create|list|revoke``: API keys for the service. A key is shown
once, when it is created; only its hash is stored."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from deepresearch.cli.common import error, fail, say, settings_from
from deepresearch.core.sanitize import for_terminal
from deepresearch.errors import DeepResearchError

if TYPE_CHECKING:  # SQLAlchemy loads when a command runs, not for --help
    from deepresearch.service.store import JobStore

keys = typer.Typer(help="Manage the service's API keys.", no_args_is_help=True)

DatabaseUrl = Annotated[
    str | None, typer.Option(help="The service database (default: the data folder's SQLite).")
]


def _store(database_url: str | None) -> JobStore:
    from deepresearch.service.db import open_database
    from deepresearch.service.store import JobStore

    try:
        return JobStore(open_database(settings_from({"database_url": database_url})))
    except DeepResearchError as exc:
        fail(exc)


@keys.command("create")
def create(
    name: Annotated[str, typer.Argument(help="Who or what the key is for.")],
    max_active_runs: Annotated[
        int, typer.Option(min=1, max=64, help="Runs this key may have going at once.")
    ] = 1,
    database_url: DatabaseUrl = None,
) -> None:
    """Create a key and print it (the only time it is shown)."""
    from deepresearch.service.keys import create_key

    record, token = create_key(_store(database_url), name, max_active_runs=max_active_runs)
    typer.echo(token)
    say(f"created {record.id} ({record.name}); store the key now, it is not shown again")


@keys.command("list")
def list_(database_url: DatabaseUrl = None) -> None:
    """List keys (id, name, prefix, state); never the keys themselves."""
    for key in _store(database_url).list_keys():
        state = f"revoked {key.revoked_at:%Y-%m-%d}" if key.revoked_at else "active"
        name = for_terminal(key.name)
        typer.echo(f"{key.id}\t{name}\t{key.prefix}…\tmax {key.max_active_runs} runs\t{state}")


@keys.command("revoke")
def revoke(
    key_id: Annotated[str, typer.Argument(help="The key's id (from 'keys list').")],
    database_url: DatabaseUrl = None,
) -> None:
    """Revoke a key: requests with it are refused from now on."""
    if not _store(database_url).revoke_key(key_id):
        error(f"no active key {key_id!r}", "see 'deepresearch keys list'")
    typer.echo(f"revoked {for_terminal(key_id)}")
