"""Bounded storage (``deepresearch gc``, and the service's periodic pass): what a finished
run no longer needs is dropped, by the policy of ``RetentionSettings``.

* **Checkpoints** (``compact_checkpoints``): a finished run (no next stage, no pause) keeps
  its last checkpoint only. Its report (``report``), its follow-ups (``ask``: the followed
  run's state, pages and evidence), its replay (the recording folder, not the checkpoint)
  and its evaluation (``eval``: the report and evidence, written back as a new last
  checkpoint) all read that one; the earlier ones, a full state after every stage, are
  history nobody asks for. Unfinished and paused runs are never touched.
* **Service jobs** (``retain_jobs_days``): a job that ended longer ago is forgotten with
  its events, results, usage, answers and checkpoints (its results already went at
  ``job_ttl_s``).
* **Pages**: page-cache entries older than ``page_cache_ttl_s``, which no run would be
  served, are deleted with the bodies only they used.

One pass at a time over one store: on PostgreSQL an advisory lock (another process
collecting: this one skips its turn), on SQLite a lock file beside the checkpoints. A dry
run reports what would go and changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from filelock import FileLock, Timeout

from deepresearch.checkpoints import (
    compact,
    compactable,
    is_postgres,
    open_checkpointer,
    sqlite_checkpoint_path,
)
from deepresearch.errors import ConfigError
from deepresearch.recipes.registry import DEFAULT_RECIPE, checkpoint_types, get_recipe
from deepresearch.settings import Settings
from deepresearch.settings_groups import FetchPolicy, RetentionSettings
from deepresearch.sqldb import libpq_url

log = logging.getLogger(__name__)

#: the PostgreSQL advisory lock one collecting process holds
GC_LOCK = 0x6465_6570_6763  # "deepgc"


@dataclass
class Collected:
    """What a pass dropped (or, dry, would drop)."""

    runs_compacted: int = 0
    checkpoints_dropped: int = 0
    jobs_forgotten: int = 0
    events_dropped: int = 0
    pages_dropped: int = 0
    page_bytes_freed: int = 0
    skipped: bool = False  # another process was collecting

    def lines(self, *, dry_run: bool) -> list[str]:
        verb = "would drop" if dry_run else "dropped"
        if self.skipped:
            return ["another process is collecting; nothing done"]
        return [
            f"checkpoints: {verb} {self.checkpoints_dropped} earlier checkpoints of "
            f"{self.runs_compacted} finished runs (each keeps its last)",
            f"service jobs: {verb} {self.jobs_forgotten} ended jobs with "
            f"{self.events_dropped} events",
            f"pages: {verb} {self.pages_dropped} stale cached pages "
            f"({self.page_bytes_freed / 1e6:.1f} MB of bodies)",
        ]


class Jobs(Protocol):
    """The service's jobs, as retention sees them (``service.store.JobStore``)."""

    def forgettable(self, before: datetime) -> tuple[list[str], int]: ...

    def forget(self, job_ids: list[str]) -> int: ...


async def collect(
    settings: Settings,
    *,
    dry_run: bool = False,
    jobs: Jobs | None = None,
    now: datetime | None = None,
) -> Collected:
    """One pass of the policy over ``settings``' stores (``jobs``: the service's, when
    there is a service database)."""
    policy = RetentionSettings.of(settings)
    found = Collected()
    async with _one_at_a_time(settings) as mine:
        if not mine:
            found.skipped = True
            return found
        if policy.compact_checkpoints:
            await _checkpoints(settings, found, dry_run=dry_run)
        if policy.retain_jobs_days > 0:
            before = (now or datetime.now(UTC)) - timedelta(days=policy.retain_jobs_days)
            if jobs is not None:
                ids, found.events_dropped = await asyncio.to_thread(jobs.forgettable, before)
                found.jobs_forgotten = (
                    len(ids) if dry_run else await asyncio.to_thread(jobs.forget, ids)
                )
                if ids and not dry_run:
                    await _forget_threads(settings, ids)
        await asyncio.to_thread(_pages, settings, found, dry_run)
    return found


async def _checkpoints(settings: Settings, found: Collected, *, dry_run: bool) -> None:
    if not is_postgres(settings.database_url) and not sqlite_checkpoint_path(settings).is_file():
        return
    async with open_checkpointer(settings, checkpoint_types()) as saver:
        candidates = await compactable(saver, settings)
        finished = [run for run in sorted(candidates) if await _finished(saver, run)]
        found.runs_compacted = len(finished)
        found.checkpoints_dropped = sum(candidates[run] for run in finished)
        if not dry_run:
            await compact(saver, settings, finished)


async def _forget_threads(settings: Settings, run_ids: list[str]) -> None:
    """The checkpoints of forgotten jobs (a job's run is the thread of its id): nothing
    reads them once the job is gone, and each kept its last checkpoint (~30 kB)."""
    if not is_postgres(settings.database_url) and not sqlite_checkpoint_path(settings).is_file():
        return
    async with open_checkpointer(settings, checkpoint_types()) as saver:
        for run_id in run_ids:
            await saver.adelete_thread(run_id)


async def _finished(saver: Any, run_id: str) -> bool:
    """Whether the run ended: a state, no stage next, nothing asked of a person."""
    config: Any = {"configurable": {"thread_id": run_id}}
    snapshot = await get_recipe(DEFAULT_RECIPE).build_graph(saver).aget_state(config)
    if not snapshot.values:
        return False
    recipe = get_recipe(snapshot.values.get("recipe") or DEFAULT_RECIPE)
    snapshot = await recipe.build_graph(saver).aget_state(config)
    return not snapshot.next and not snapshot.interrupts


def _pages(settings: Settings, found: Collected, dry_run: bool) -> None:
    from deepresearch.fetch.cache import PageCache

    path = settings.data_dir / "pages.sqlite3"
    if not path.is_file():
        return
    cache = PageCache(path, ttl_s=FetchPolicy.of(settings).page_cache_ttl_s)
    try:
        found.pages_dropped, found.page_bytes_freed = (
            cache.stale() if dry_run else cache.drop_stale()
        )
    finally:
        cache.close()


def vacuum(settings: Settings) -> None:
    """Give the space freed in the SQLite files back to the disk (``deepresearch gc``;
    the periodic pass leaves it for SQLite to reuse: a VACUUM waits for every reader)."""
    paths = [settings.data_dir / "pages.sqlite3"]
    if not is_postgres(settings.database_url):
        paths.append(sqlite_checkpoint_path(settings))
    if not settings.database_url:
        paths.append(settings.data_dir / "service.sqlite3")
    for path in paths:
        if path.is_file():
            with contextlib.closing(sqlite3.connect(str(path), timeout=30)) as conn:
                conn.execute("VACUUM")
                # in WAL mode the rewritten pages land in the -wal file first
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def size_of(settings: Settings) -> int:
    """Bytes of the SQLite files of ``settings.data_dir`` (checkpoints, service, pages)."""
    total = 0
    for name in ("checkpoints.sqlite3", "service.sqlite3", "pages.sqlite3"):
        for suffix in ("", "-wal"):
            path = settings.data_dir / (name + suffix)
            total += path.stat().st_size if path.is_file() else 0
    return total


@contextlib.asynccontextmanager
async def _one_at_a_time(settings: Settings) -> AsyncIterator[bool]:
    """Whether this process collects now (True) or another one does (False)."""
    if is_postgres(settings.database_url):
        try:
            from psycopg import AsyncConnection
        except ImportError:
            raise ConfigError(
                "PostgreSQL needs the postgres extra", hint="pip install 'deepresearch[postgres]'"
            ) from None

        url = libpq_url(str(settings.database_url))
        async with await AsyncConnection.connect(url, autocommit=True) as conn:
            cursor = await conn.execute("SELECT pg_try_advisory_lock(%s)", (GC_LOCK,))
            row = await cursor.fetchone()
            yield bool(row and row[0])  # the lock goes with the connection
        return
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(Path(settings.data_dir) / "gc.lock", timeout=0)
    try:
        lock.acquire()
    except Timeout:
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


async def collect_every(settings: Settings, jobs: Jobs | None = None) -> None:
    """The service's periodic pass: ``collect`` every ``gc_every_s`` (a first pass one
    period after start), until cancelled. Several processes on one database take turns
    (``_one_at_a_time``); a failed pass is logged and tried again next period."""
    every = RetentionSettings.of(settings).gc_every_s
    while every > 0:
        await asyncio.sleep(every)
        try:
            found = await collect(settings, jobs=jobs)
        except Exception:
            log.exception("the retention pass failed")
            continue
        for line in found.lines(dry_run=False):
            log.info("retention: %s", line)
