"""Where run checkpoints live: SQLite in the data folder by default, PostgreSQL when
``database_url`` names one (the service's database). Both are LangGraph savers with an
allow-listed serializer (the types every recipe declares), written synchronously after
every stage. Every recipe's runs share one store; a run's id is its thread.

``store_lock`` serialises a read-then-write of a run's state made outside its run (a
thread's turns, recorded in the thread's root by each follow-up) across every process
sharing the store."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
from filelock import AsyncFileLock, Timeout
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from deepresearch.errors import ConfigError, RunError
from deepresearch.settings_groups import Storage
from deepresearch.sqldb import libpq_url

log = logging.getLogger(__name__)
T = TypeVar("T")

_ready: set[str] = set()
_setup_lock = asyncio.Lock()
#: the PostgreSQL advisory lock held while a process creates the checkpoint tables
SETUP_LOCK = 0x6465_6570_636B_70  # "deepckp"
#: how long a SQLite checkpoint write waits for the file's write lock, each attempt
SQLITE_BUSY_S = 30.0
#: attempts of a SQLite checkpoint write that found the file locked past ``SQLITE_BUSY_S``
SQLITE_WRITE_ATTEMPTS = 4
#: how long a process waits for another to create the checkpoint tables
SETUP_WAIT_S = 120.0
#: the first key of ``store_lock``'s PostgreSQL advisory locks (the second: the name's hash)
STORE_LOCKS = 0x6472_7468  # "drth"
#: how long ``store_lock`` waits on SQLite before saying the store is busy
STORE_LOCK_WAIT_S = 60.0


def is_postgres(url: str | None) -> bool:
    return bool(url) and str(url).startswith(("postgresql", "postgres:"))


def sqlite_checkpoint_path(settings: Storage) -> Path:
    return settings.data_dir / "checkpoints.sqlite3"


def describe(settings: Storage) -> str:
    """Where checkpoints are, for messages (no password)."""
    if is_postgres(settings.database_url):
        return "the PostgreSQL database"
    return str(sqlite_checkpoint_path(settings))


def checkpoint_serde(types: Sequence[tuple[str, str]]) -> JsonPlusSerializer:
    """A serializer that loads only ``types`` (module, class) from a checkpoint."""
    return JsonPlusSerializer(allowed_msgpack_modules=list(types))


@asynccontextmanager
async def open_checkpointer(
    settings: Storage, types: Sequence[tuple[str, str]]
) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """The checkpoint store; its serializer loads only ``types``."""
    if is_postgres(settings.database_url):
        async with _postgres(str(settings.database_url), types) as saver:
            yield saver
        return
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    conn = await _connect(sqlite_checkpoint_path(settings))
    try:
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_S * 1000)}")
        yield PatientSqliteSaver(conn, serde=checkpoint_serde(types))
    finally:
        await conn.close()


class PatientSqliteSaver(AsyncSqliteSaver):
    """LangGraph's SQLite saver whose writes outlast a busy file: a checkpoint write that
    still finds the write lock taken after ``SQLITE_BUSY_S`` ("database is locked") is
    rolled back and made again, up to ``SQLITE_WRITE_ATTEMPTS`` times. Several worker
    processes on one SQLite file (the soak: three, nine runs at once, at a lowered CPU
    priority) lost runs to it: the error failed the run. A write is whole or not at all
    (``INSERT OR REPLACE`` of one checkpoint, or of one step's writes), so making it again
    changes nothing but its time."""

    async def aput(self, *args: Any, **kwargs: Any) -> Any:
        return await self._patiently(lambda: super(PatientSqliteSaver, self).aput(*args, **kwargs))

    async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
        await self._patiently(lambda: super(PatientSqliteSaver, self).aput_writes(*args, **kwargs))

    async def _patiently(self, write: Callable[[], Awaitable[T]]) -> T:
        for attempt in range(1, SQLITE_WRITE_ATTEMPTS + 1):
            try:
                return await write()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == SQLITE_WRITE_ATTEMPTS:
                    raise
                # under the saver's lock: no other write of this connection is half-way
                async with self.lock:
                    await self.conn.rollback()
                log.warning("checkpoint write found the store locked; again (%d)", attempt)
                await asyncio.sleep(0.1 * attempt)
        raise AssertionError("unreachable")


@asynccontextmanager
async def store_lock(
    settings: Storage, saver: BaseCheckpointSaver[str], name: str
) -> AsyncIterator[None]:
    """Held by one task at a time, in every process sharing the checkpoint store, while
    it reads a run's state and writes it back (``name`` says what is guarded). PostgreSQL:
    an advisory lock, on the saver's connection (its end releases it); SQLite: a lock file
    next to the database, since a state update commits more than once (its writes, then
    the checkpoint) and no transaction of the saver's can span it."""
    if is_postgres(settings.database_url):
        conn = getattr(saver, "conn", None)
        assert conn is not None, "a PostgreSQL saver has its connection"
        key = zlib.crc32(name.encode()) - 2**31  # the int4 the two-key form takes
        await conn.execute("SELECT pg_advisory_lock(%s, %s)", (STORE_LOCKS, key))
        try:
            yield
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s, %s)", (STORE_LOCKS, key))
        return
    path = sqlite_checkpoint_path(settings)
    # non-blocking attempts from the event loop: the default thread pool may be busy
    lock = AsyncFileLock(path.with_name(path.name + ".lock"), run_in_executor=False)
    try:
        await lock.acquire(timeout=STORE_LOCK_WAIT_S)
    except Timeout:
        raise RunError(
            f"the checkpoint store stayed busy for {STORE_LOCK_WAIT_S:.0f} s ({name})",
            hint=f"another process holds {lock.lock_file}; try again",
        ) from None
    try:
        yield
    finally:
        await lock.release()


async def _connect(path: Path) -> aiosqlite.Connection:
    """``aiosqlite.connect``, seen through even when the run is cancelled meanwhile (Ctrl-C
    as a run starts): a connect abandoned half-way leaves aiosqlite's thread answering a
    closed event loop, which prints a traceback. The connection is closed, then the
    cancellation goes on."""

    async def connect() -> aiosqlite.Connection:
        return await aiosqlite.connect(str(path))

    pending = asyncio.ensure_future(connect())
    try:
        return await asyncio.shield(pending)
    except asyncio.CancelledError:
        conn = await pending
        await conn.close()
        raise


@asynccontextmanager
async def _postgres(
    url: str, types: Sequence[tuple[str, str]]
) -> AsyncIterator[BaseCheckpointSaver[str]]:
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg import AsyncConnection
    except ImportError:
        raise ConfigError(
            "PostgreSQL checkpoints need the postgres extra",
            hint="pip install 'deepresearch[postgres]'",
        ) from None
    async with AsyncPostgresSaver.from_conn_string(
        libpq_url(url), serde=checkpoint_serde(types)
    ) as saver:
        async with _setup_lock:
            if url not in _ready:
                # processes starting together (workers on several machines) create the
                # tables one at a time: a concurrent CREATE ... IF NOT EXISTS can fail
                conn = saver.conn
                assert isinstance(conn, AsyncConnection)  # from_conn_string: one connection
                await _take_setup_lock(conn)
                try:
                    await saver.setup()
                finally:
                    await conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
                _ready.add(url)
        yield saver


async def _take_setup_lock(conn: Any) -> None:
    """``SETUP_LOCK``, asked for again and again rather than waited for: the setup of the
    process holding it builds indexes ``CONCURRENTLY``, which waits for every transaction
    open when it starts, and a ``pg_advisory_lock`` that waits is one: each would wait
    for the other (PostgreSQL ends one with "deadlock detected", which failed the first
    job of a worker starting beside another on a new database)."""
    deadline = asyncio.get_running_loop().time() + SETUP_WAIT_S
    while True:
        cursor = await conn.execute("SELECT pg_try_advisory_lock(%s) AS taken", (SETUP_LOCK,))
        row = await cursor.fetchone()
        if row and (row["taken"] if isinstance(row, dict) else row[0]):
            return
        if asyncio.get_running_loop().time() > deadline:
            raise RunError(
                f"the checkpoint tables were still being created by another process after "
                f"{SETUP_WAIT_S:.0f} s",
                hint="check the other deepresearch processes on this database; try again",
            )
        await asyncio.sleep(0.05)


# compaction (``deepresearch gc``): a finished run's earlier checkpoints are history no
# reader asks for; its report, follow-ups, replay and evaluation read the last one (its
# state and its pending writes), which is kept whole.

_SQLITE_OLDER = """
    {table}.checkpoint_id < (
        SELECT MAX(latest.checkpoint_id) FROM checkpoints AS latest
        WHERE latest.thread_id = {table}.thread_id
          AND latest.checkpoint_ns = {table}.checkpoint_ns
    )"""


async def compactable(saver: BaseCheckpointSaver[str], settings: Storage) -> dict[str, int]:
    """Runs with checkpoints besides their last -> how many (the candidates of
    ``compact``; whether a run is finished is its recipe's to say)."""
    if is_postgres(settings.database_url):
        query = (
            "SELECT thread_id, COUNT(*) - COUNT(DISTINCT checkpoint_ns) FROM checkpoints "
            "GROUP BY thread_id HAVING COUNT(*) > COUNT(DISTINCT checkpoint_ns)"
        )
        conn = getattr(saver, "conn", None)
        assert conn is not None, "a PostgreSQL saver has its connection"
        async with conn.cursor() as cur:
            await cur.execute(query)
            rows = await cur.fetchall()
        return dict(_row(row) for row in rows)
    older = _SQLITE_OLDER.format(table="checkpoints")
    async with _sqlite(saver).execute(
        f"SELECT thread_id, COUNT(*) FROM checkpoints WHERE {older} GROUP BY thread_id"  # noqa: S608 (no input)
    ) as cursor:
        return {str(thread): int(count) async for thread, count in cursor}


async def compact(
    saver: BaseCheckpointSaver[str], settings: Storage, run_ids: Sequence[str]
) -> None:
    """Keep only the last checkpoint (and its writes) of each of ``run_ids``: finished runs.
    A checkpoint written meanwhile (an evaluation, a follow-up's turn) is the last one."""
    if not run_ids:
        return
    if is_postgres(settings.database_url):
        for run_id in run_ids:  # one at a time: another process may prune beside us
            try:
                await saver.aprune([run_id], strategy="keep_latest")
            except Exception as exc:  # a concurrent prune of the run: it is done there
                if type(exc).__name__ not in ("SerializationFailure", "DeadlockDetected"):
                    raise
        return
    conn = _sqlite(saver)
    for run_id in run_ids:
        for table in ("writes", "checkpoints"):
            older = _SQLITE_OLDER.format(table=table)
            await conn.execute(
                f"DELETE FROM {table} WHERE thread_id = ? AND {older}",  # noqa: S608 (no input)
                (run_id,),
            )
        await conn.commit()


def _sqlite(saver: BaseCheckpointSaver[str]) -> aiosqlite.Connection:
    conn = getattr(saver, "conn", None)
    assert isinstance(conn, aiosqlite.Connection), "a SQLite saver has its connection"
    return conn


def _row(row: object) -> tuple[str, int]:
    """A (thread id, count) row of either driver's cursor (tuples or dicts)."""
    values = list(row.values())[:2] if isinstance(row, dict) else row
    assert isinstance(values, tuple | list)
    return str(values[0]), int(values[1])
