"""The service database: one SQLAlchemy engine (SQLite with WAL by default, PostgreSQL by
URL) and Alembic migrations applied at start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event

from deepresearch.errors import ConfigError
from deepresearch.settings_groups import Storage

MIGRATIONS = Path(__file__).parent / "migrations"


def database_url(settings: Storage) -> str:
    """The SQLAlchemy URL of the service database."""
    url = settings.database_url
    if not url:
        return f"sqlite:///{settings.data_dir / 'service.sqlite3'}"
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url.removeprefix(plain)
    return url


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
        return create_engine(url, pool_size=10, max_overflow=10, pool_pre_ping=True)
    raise ConfigError(
        "database_url must be a sqlite:/// or postgresql:// URL",
        hint="for example postgresql+psycopg://user:password@127.0.0.1/deepresearch",
    )


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


#: the PostgreSQL advisory lock that lets one process at a time migrate the schema
MIGRATION_LOCK = 0x6465_6570_7265_73  # "deepres"


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (idempotent). Processes starting
    together on one database (API processes and workers) migrate one after the other: the
    others then find the schema up to date. PostgreSQL: an advisory lock held until the
    migration commits; SQLite: ``BEGIN IMMEDIATE``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.execution_options(sqlite_immediate=True).begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def open_database(settings: Storage) -> Engine:
    """An engine on the configured database with the schema up to date."""
    url = database_url(settings)
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = make_engine(url)
    migrate(engine)
    return engine
