"""``deepresearch worker``: the worker pool without the HTTP API (docs/operations.md).

Any number of worker processes and ``deepresearch serve --no-workers`` processes, on any
number of machines, share one database: the workers claim queued jobs under leases
(PostgreSQL ``FOR UPDATE SKIP LOCKED``), store every event there, and the API processes
serve the jobs and their event streams from it. SIGTERM (or Ctrl-C) stops claiming, stops
the running jobs and hands them back to the queue, like ``serve``; a worker that dies
without that (``kill -9``, a lost machine) loses its leases, and other workers resume its
jobs from their checkpoints."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import EXIT_FAILED, error, fail, settings_from, use_config_file
from deepresearch.errors import DeepResearchError

if TYPE_CHECKING:  # SQLAlchemy and the runner load when working, not for --help
    from sqlalchemy import Engine

    from deepresearch.service.worker import WorkerPool
    from deepresearch.settings import Settings

#: how often the health file is touched while the worker's claim loop reaches the database
HEALTH_EVERY_S = 5.0


@options.with_backends(roles=False)
def worker(
    concurrency: Annotated[
        int | None,
        typer.Option(help="Jobs this process runs at once (max_concurrent_jobs, default 3)."),
    ] = None,
    database_url: options.DatabaseUrl = None,
    health_file: Annotated[
        Path | None,
        typer.Option(
            help="Touch this file every few seconds while the worker reaches the database "
            "(a container health check reads its age)."
        ),
    ] = None,
    allow_host: options.AllowHost = None,
    backends: options.Backends = options.NOT_GIVEN,
    config: options.Config = None,
) -> None:
    """Run research jobs from the shared database, without the HTTP API."""
    from deepresearch.service.db import open_database

    use_config_file(config)
    overrides: dict[str, Any] = {
        "database_url": database_url,
        "max_concurrent_jobs": concurrency,
        **backends.overrides(allow_host),
    }
    settings = settings_from(overrides)
    try:
        engine = open_database(settings)
    except DeepResearchError as exc:
        fail(exc)
    except Exception as exc:  # the database server is down or refuses us: no traceback
        error(
            f"cannot open the database: {type(exc).__name__}",
            "check --database-url (DEEPRESEARCH_DATABASE_URL) and that the server is up",
        )
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    lower_priority(settings.worker_nice)
    try:
        asyncio.run(_work(settings, engine, health_file))
    except KeyboardInterrupt:  # a second Ctrl-C while stopping
        raise typer.Exit(EXIT_FAILED) from None
    finally:
        engine.dispose()


async def _work(settings: Settings, engine: Engine, health_file: Path | None) -> None:
    from deepresearch.compose.gc import collect_every
    from deepresearch.service.app.jobs import page_texts, worker_pool
    from deepresearch.service.db import database_url
    from deepresearch.service.notify import Notifier
    from deepresearch.service.store import JobStore
    from deepresearch.service.watch_scheduler import WatchScheduler, start
    from deepresearch.settings_groups import ServiceSettings

    pool = worker_pool(JobStore(engine), settings, Notifier())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await pool.start()
    where = database_url(settings).split("://", 1)[0]
    typer.echo(
        f"deepresearch worker {pool.worker_id} running up to {settings.max_concurrent_jobs} "
        f"jobs ({where})",
        err=True,
    )
    health = asyncio.create_task(_keep_health_file(pool, health_file)) if health_file else None
    retention = asyncio.create_task(collect_every(settings, pool.store))  # bounded storage
    # due watches queued and their change reports written, in turns with every process
    scheduler = WatchScheduler(
        pool.store, ServiceSettings.of(settings), pool.wake, pages=page_texts(settings)
    )
    watches = start(scheduler)
    try:
        await stop.wait()
        typer.echo("deepresearch worker stopping: handing running jobs back", err=True)
    finally:
        retention.cancel()
        if watches is not None:
            watches.cancel()
        if health is not None:
            health.cancel()
        await pool.stop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


def lower_priority(nice: int) -> None:
    """Add ``nice`` to this process's CPU niceness (``worker_nice``): a worker's runs
    (extraction, ranking, rendering) then yield the cores to the API processes and the
    database beside it, whose requests wait on them otherwise (docs/benchmarks.md, soak).
    Raising one's own niceness needs no privilege; where it is refused, nothing changes."""
    if nice > 0:
        with contextlib.suppress(OSError, AttributeError):  # AttributeError: no os.nice
            os.nice(nice)


async def _keep_health_file(pool: WorkerPool, path: Path) -> None:
    """Touch ``path`` while the pool's claim loop has reached the database lately."""
    path.parent.mkdir(parents=True, exist_ok=True)
    loop = asyncio.get_running_loop()
    while True:
        if loop.time() - pool.healthy_at < 3 * HEALTH_EVERY_S:
            with contextlib.suppress(OSError):
                await asyncio.to_thread(path.touch)
        await asyncio.sleep(HEALTH_EVERY_S)
