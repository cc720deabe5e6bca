"""``deepresearch gc``: apply the retention policy now (``compose/gc.py``): compact the
checkpoints of finished runs to their last, forget service jobs that ended more than
``retain_jobs_days`` ago, drop stale cached pages, and give the space back (SQLite's
VACUUM). ``--dry-run`` says what would go and changes nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from deepresearch.cli import options
from deepresearch.cli.common import fail, say, settings_from, use_config_file
from deepresearch.errors import DeepResearchError

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from deepresearch.settings import Settings


def gc(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would be dropped; change nothing.")
    ] = False,
    database_url: options.DatabaseUrl = None,
    config: options.Config = None,
) -> None:
    """Drop what finished runs no longer need (see docs/operations.md, retention)."""
    import asyncio

    from deepresearch.compose.gc import collect, size_of, vacuum
    from deepresearch.service.store import JobStore

    use_config_file(config)
    settings = settings_from({"database_url": database_url})
    before = size_of(settings)
    engine = _service_database(settings)
    try:
        jobs = JobStore(engine) if engine is not None else None
        found = asyncio.run(collect(settings, dry_run=dry_run, jobs=jobs))
        if not dry_run and not found.skipped:
            vacuum(settings)
    except DeepResearchError as exc:
        fail(exc)
    finally:
        if engine is not None:
            engine.dispose()
    for line in found.lines(dry_run=dry_run):
        typer.echo(line)
    if not dry_run and not found.skipped:
        after = size_of(settings)
        say(f"files in {settings.data_dir}: {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")


def _service_database(settings: Settings) -> Engine | None:
    """The service's database, when one keeps its jobs here (none: no jobs to forget)."""
    from deepresearch.service.db import database_url, make_engine

    if not settings.database_url and not (settings.data_dir / "service.sqlite3").is_file():
        return None
    return make_engine(database_url(settings))
