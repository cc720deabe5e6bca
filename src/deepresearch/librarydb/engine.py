"""Where the library lives: in the PostgreSQL database of the checkpoints and the
service when ``database_url`` names one (its own tables and Alembic history there), else
in ``data_dir/library.sqlite3``. Opening it brings its schema up to date."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from deepresearch.settings_groups import Storage
from deepresearch.sqldb import MIGRATION_LOCK, make_engine, migrate, sqlalchemy_url

MIGRATIONS = Path(__file__).parent / "migrations"
#: its own advisory lock: the service's and the library's migrations may run together
LIBRARY_MIGRATION_LOCK = MIGRATION_LOCK + 1


def library_url(storage: Storage) -> str:
    """The SQLAlchemy URL of the library of ``storage``."""
    url = storage.database_url or ""
    if url.startswith(("postgresql", "postgres:")):
        return sqlalchemy_url(url)
    return f"sqlite:///{storage.data_dir / 'library.sqlite3'}"


def open_library(storage: Storage) -> Engine:
    """An engine on the library of ``storage`` with its schema up to date."""
    url = library_url(storage)
    if url.startswith("sqlite"):
        storage.data_dir.mkdir(parents=True, exist_ok=True)
    engine = make_engine(url)
    migrate_library(engine)
    return engine


def migrate_library(engine: Engine) -> None:
    """Bring the library's schema to its newest revision (idempotent)."""
    from deepresearch.librarydb.tables import VERSION_TABLE

    migrate(engine, MIGRATIONS, version_table=VERSION_TABLE, lock=LIBRARY_MIGRATION_LOCK)
