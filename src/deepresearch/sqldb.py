"""SQLAlchemy engines for the databases deepresearch keeps beside its checkpoints: the
service's jobs (``service/db.py``) and the library (``librarydb/``). SQLite with WAL, a
busy timeout and foreign keys, its transactions begun by us (``BEGIN IMMEDIATE`` when a
write must not lose a read-then-write race), or PostgreSQL through psycopg; and Alembic
migrations run one process at a time."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Dialect, Engine, create_engine, event
from sqlalchemy.exc import DisconnectionError

from deepresearch.errors import ConfigError

#: a pooled PostgreSQL connection idle this long is pinged before it is used again
PING_IDLE_S = 1.0
#: the PostgreSQL advisory lock that lets one process at a time migrate a schema
MIGRATION_LOCK = 0x6465_6570_7265_73  # "deepres"


def sqlalchemy_url(url: str) -> str:
    """``url`` with a plain ``postgresql://`` (or ``postgres://``) given psycopg's driver."""
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url.removeprefix(plain)
    return url


def libpq_url(url: str) -> str:
    """``postgresql+psycopg://u@h/db`` (SQLAlchemy) → ``postgresql://u@h/db`` (libpq)."""
    scheme, rest = url.split("://", 1)
    return f"{scheme.split('+', 1)[0]}://{rest}"


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=8
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    if url.startswith("postgresql"):
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise ConfigError(
                "PostgreSQL needs the postgres extra", hint="pip install 'deepresearch[postgres]'"
            ) from None
        engine = create_engine(url, pool_size=10, max_overflow=10)
        event.listen(engine, "checkin", _note_idle)
        event.listen(engine, "checkout", _PingIfIdle(engine.dialect))
        return engine
    raise ConfigError(
        "database_url must be a sqlite:/// or postgresql:// URL",
        hint="for example postgresql+psycopg://user:password@127.0.0.1/deepresearch",
    )


def _note_idle(_dbapi_connection: Any, record: Any) -> None:
    record.info["idle_since"] = time.monotonic()


class _PingIfIdle:
    """A PostgreSQL connection idle for ``PING_IDLE_S`` or more is pinged as it leaves the
    pool, and replaced if the server no longer answers it (restarted, or a proxy closed
    it): ``pool_pre_ping``'s care without its round trip on every checkout, which a busy
    service paid on every request. A connection in use a moment ago is taken as alive;
    if the server went away within that moment, its first statement fails, and the
    failure invalidates the pool's older connections so the next request gets new ones."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect

    def __call__(self, dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < PING_IDLE_S:
            return
        try:
            self.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            raise DisconnectionError("the database no longer answers this connection") from exc


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # transactions are started by the "begin" listener below (the pysqlite recipe), so a
    # store write can ask for BEGIN IMMEDIATE and never lose a read-then-write race
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    immediate = conn.get_execution_options().get("sqlite_immediate", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def migrate(
    engine: Engine, script_location: Path, *, version_table: str, lock: int, to: str = "head"
) -> None:
    """Bring the schema of the migrations in ``script_location`` to their newest Alembic
    revision (idempotent), recorded in ``version_table``. Processes starting together on
    one database migrate one after the other: the others then find the schema up to
    date. PostgreSQL: an advisory lock (``lock``) held until the migration commits;
    SQLite: ``BEGIN IMMEDIATE``."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(script_location))
    with engine.execution_options(sqlite_immediate=True).begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({lock})")
        config.attributes["connection"] = connection
        config.attributes["version_table"] = version_table
        command.upgrade(config, to)


Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def aware(value: datetime | None) -> datetime | None:
    """``value`` with UTC attached when it came back naive (SQLite hands back naive
    datetimes; everything stored is UTC)."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def utc(value: datetime | None) -> datetime | None:
    """``value`` in UTC (naive values are taken as UTC), as stored."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Transactions:
    """An engine and a clock, and the two ways a store talks through them: a write
    transaction that may read first without losing a race, and a read."""

    def __init__(self, engine: Engine, clock: Clock = utcnow) -> None:
        self.engine = engine
        self.clock = clock
        self.sqlite = engine.dialect.name == "sqlite"
        self._reader = (
            engine if self.sqlite else engine.execution_options(isolation_level="AUTOCOMMIT")
        )

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A transaction that may read and then write without losing a race (SQLite:
        ``BEGIN IMMEDIATE``)."""
        engine = (
            self.engine.execution_options(sqlite_immediate=True) if self.sqlite else self.engine
        )
        with engine.begin() as conn:
            yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        """A connection for reads. PostgreSQL: each statement on its own (autocommit),
        no BEGIN and ROLLBACK round trips around it; a read of several statements sees
        each one's moment, not one snapshot."""
        with self._reader.connect() as conn:
            yield conn
