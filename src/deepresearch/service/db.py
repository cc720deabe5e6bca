"""The service database: one SQLAlchemy engine (SQLite with WAL by default, PostgreSQL by
URL) and Alembic migrations applied at start."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from deepresearch.settings_groups import Storage
from deepresearch.sqldb import MIGRATION_LOCK, make_engine, sqlalchemy_url
from deepresearch.sqldb import migrate as sqldb_migrate

__all__ = ["MIGRATION_LOCK", "database_url", "make_engine", "migrate", "open_database"]

MIGRATIONS = Path(__file__).parent / "migrations"


def database_url(settings: Storage) -> str:
    """The SQLAlchemy URL of the service database."""
    url = settings.database_url
    if not url:
        return f"sqlite:///{settings.data_dir / 'service.sqlite3'}"
    return sqlalchemy_url(url)


def migrate(engine: Engine, to: str = "head") -> None:
    """Bring the schema to the newest Alembic revision (idempotent; ``to``: an earlier
    one), one process at a time (``sqldb.migrate``)."""
    sqldb_migrate(engine, MIGRATIONS, version_table="alembic_version", lock=MIGRATION_LOCK, to=to)


def open_database(settings: Storage) -> Engine:
    """An engine on the configured database with the schema up to date."""
    url = database_url(settings)
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = make_engine(url)
    migrate(engine)
    return engine
