"""A SQLite checkpoint write outlasts a file another process keeps locked longer than the
busy timeout (``checkpoints.PatientSqliteSaver``): rolled back and made again, instead of
failing the run with "database is locked" (the SQLite soak lost 28 of 303 jobs to it). The
busy timeout is shortened here so that the lock outlasts it in a second."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from deepresearch import checkpoints
from deepresearch.recipes.registry import checkpoint_types
from deepresearch.settings_groups import StorageSettings


def test_a_checkpoint_write_waits_out_a_lock_longer_than_the_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "SQLITE_BUSY_S", 0.2)
    settings = StorageSettings(data_dir=tmp_path, database_url=None, record_runs=False)
    config = {"configurable": {"thread_id": "run-000000000001", "checkpoint_ns": ""}}

    async def scenario() -> None:
        async with checkpoints.open_checkpointer(settings, checkpoint_types()) as saver:
            await saver.setup()
            # another process's write transaction, held 0.8 s: four busy timeouts
            other = sqlite3.connect(checkpoints.sqlite_checkpoint_path(settings))
            other.isolation_level = None
            other.execute("BEGIN IMMEDIATE")
            asyncio.get_running_loop().call_later(0.8, other.execute, "COMMIT")
            await saver.aput(config, empty_checkpoint(), {}, {})  # type: ignore[arg-type]
            other.close()
            stored = await saver.aget_tuple({"configurable": {"thread_id": "run-000000000001"}})
            assert stored is not None

    asyncio.run(scenario())


def test_a_lock_that_outlasts_every_attempt_is_still_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "SQLITE_BUSY_S", 0.05)
    settings = StorageSettings(data_dir=tmp_path, database_url=None, record_runs=False)
    config = {"configurable": {"thread_id": "run-000000000002", "checkpoint_ns": ""}}

    async def scenario() -> None:
        async with checkpoints.open_checkpointer(settings, checkpoint_types()) as saver:
            await saver.setup()
            other = sqlite3.connect(checkpoints.sqlite_checkpoint_path(settings))
            other.isolation_level = None
            other.execute("BEGIN IMMEDIATE")
            try:
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    await saver.aput(config, empty_checkpoint(), {}, {})  # type: ignore[arg-type]
            finally:
                other.execute("COMMIT")
                other.close()
            # the saver is usable again once the lock is gone
            await saver.aput(config, empty_checkpoint(), {}, {})  # type: ignore[arg-type]

    asyncio.run(scenario())
