"""Processes starting together on a new PostgreSQL database create the checkpoint tables
one at a time (``checkpoints.SETUP_LOCK``), and one waiting its turn holds no transaction
open: the setup of the process ahead of it builds indexes ``CONCURRENTLY``, which waits
for every open transaction. A waiter that sat in ``pg_advisory_lock`` was one, and
PostgreSQL ended the pair with "deadlock detected" (the first job of a worker failed)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psycopg

from deepresearch.checkpoints import SETUP_LOCK, open_checkpointer
from deepresearch.recipes.registry import checkpoint_types
from deepresearch.settings_groups import StorageSettings
from deepresearch.sqldb import libpq_url

from .postgres import PostgresServer


async def _open(settings: StorageSettings) -> None:
    async with open_checkpointer(settings, checkpoint_types()) as saver:
        await saver.aget_tuple({"configurable": {"thread_id": "run-000000000000"}})


def test_a_process_waiting_to_set_up_the_checkpoints_lets_an_index_build_finish(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = postgres_server.new_database()
    settings = StorageSettings(data_dir=tmp_path, database_url=url, record_runs=False)

    async def scenario() -> None:
        # the process ahead: holds the lock and, as its setup does, builds an index
        # concurrently while another process waits for the lock
        async with await psycopg.AsyncConnection.connect(libpq_url(url), autocommit=True) as ahead:
            await ahead.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK,))
            await ahead.execute("CREATE TABLE scratch (x integer)")
            waiting = asyncio.create_task(_open(settings))
            await _until_it_waits(ahead)
            assert not waiting.done(), "the second process did not wait for the lock"
            await asyncio.wait_for(
                ahead.execute("CREATE INDEX CONCURRENTLY scratch_x ON scratch (x)"), 20
            )
            await ahead.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
            await asyncio.wait_for(waiting, 30)

    asyncio.run(scenario())


async def _until_it_waits(conn: psycopg.AsyncConnection[tuple[object, ...]]) -> None:
    """Return once another session of the database asks for ``SETUP_LOCK``."""
    for _ in range(400):
        cursor = await conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND query LIKE '%%advisory_lock%%'"
        )
        row = await cursor.fetchone()
        if row and row[0]:
            return
        await asyncio.sleep(0.025)
    raise AssertionError("no other session asked for the setup lock")
