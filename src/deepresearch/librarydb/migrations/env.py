"""Alembic environment of the library: migrations run on the connection
``librarydb.engine.open_library`` hands over, recorded in their own version table, so the
library can share a PostgreSQL database with the service's jobs and checkpoints."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from deepresearch.librarydb.tables import VERSION_TABLE, metadata

config = context.config
connection = config.attributes.get("connection")
version_table = config.attributes.get("version_table", VERSION_TABLE)

if connection is not None:
    context.configure(connection=connection, target_metadata=metadata, version_table=version_table)
    with context.begin_transaction():
        context.run_migrations()
else:
    engine = create_engine(str(config.get_main_option("sqlalchemy.url")))
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=metadata, version_table=version_table)
        with context.begin_transaction():
            context.run_migrations()
