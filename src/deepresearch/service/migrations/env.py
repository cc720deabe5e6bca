"""Alembic environment: migrations run on the connection the service hands over
(``deepresearch.service.db.migrate``), or on ``sqlalchemy.url`` from alembic's own config."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from deepresearch.service.tables import metadata

config = context.config
connection = config.attributes.get("connection")

if connection is not None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=config.attributes.get("version_table", "alembic_version"),
    )
    with context.begin_transaction():
        context.run_migrations()
else:
    engine = create_engine(str(config.get_main_option("sqlalchemy.url")))
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=metadata)
        with context.begin_transaction():
            context.run_migrations()
