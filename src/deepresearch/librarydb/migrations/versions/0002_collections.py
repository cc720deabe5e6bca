"""collections of imported documents: a name on library_runs, unique per owner

Revision ID: 0002_collections
Revises: 0001_library
Create Date: 2026-11-28 04:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_collections"
down_revision = "0001_library"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("library_runs", sa.Column("collection", sa.String(length=64), nullable=True))
    op.create_index(
        "ix_library_runs_owner_collection",
        "library_runs",
        ["owner", "collection"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("ix_library_runs_owner_collection", table_name="library_runs")
    with op.batch_alter_table("library_runs") as batch:
        batch.drop_column("collection")
