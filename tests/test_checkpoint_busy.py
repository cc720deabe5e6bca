"""A SQLite checkpoint write outlasts a file another process keeps locked longer than the
busy timeout (``checkpoints.PatientSqliteSaver``): rolled back and made again, instead of
failing the run with "database is locked" (the SQLite soak lost 28 of 303 jobs to it). The
busy timeout is shortened here so that the lock outlasts it in a second."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver, empty_checkpoint

from deepresearch import checkpoints
from deepresearch.recipes.registry import checkpoint_types
from deepresearch.settings_groups import StorageSettings

CONFIG: Any = {"configurable": {"thread_id": "run-000000000001", "checkpoint_ns": ""}}


@asynccontextmanager
async def saver_and_lock(
    tmp_path: Path,
) -> AsyncIterator[tuple[BaseCheckpointSaver[str], sqlite3.Connection]]:
    """The store, and another connection holding its write lock (``BEGIN IMMEDIATE``)."""
    settings = StorageSettings(data_dir=tmp_path, database_url=None, record_runs=False)
    async with checkpoints.open_checkpointer(settings, checkpoint_types()) as saver:
        await saver.setup()
        other = sqlite3.connect(checkpoints.sqlite_checkpoint_path(settings))
        other.isolation_level = None
        other.execute("BEGIN IMMEDIATE")
        try:
            yield saver, other
        finally:
            if other.in_transaction:
                other.execute("COMMIT")
            other.close()


def test_a_checkpoint_write_waits_out_a_lock_longer_than_the_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "SQLITE_BUSY_S", 0.2)

    async def scenario() -> None:
        async with saver_and_lock(tmp_path) as (saver, other):
            # the other write transaction ends after 0.8 s: four busy timeouts
            asyncio.get_running_loop().call_later(0.8, other.execute, "COMMIT")
            await saver.aput(CONFIG, empty_checkpoint(), {}, {})
            assert await saver.aget_tuple(CONFIG) is not None

    asyncio.run(scenario())


def test_a_lock_that_outlasts_every_attempt_is_still_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "SQLITE_BUSY_S", 0.05)

    async def scenario() -> None:
        async with saver_and_lock(tmp_path) as (saver, other):
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                await saver.aput(CONFIG, empty_checkpoint(), {}, {})
            other.execute("COMMIT")
            # the saver is usable again once the lock is gone
            await saver.aput(CONFIG, empty_checkpoint(), {}, {})

    asyncio.run(scenario())
