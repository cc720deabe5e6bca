"""hybrid search: one embedding per library item (float32 bytes), written when the item
enters the library or, for items stored before, on the owner's first hybrid search

Revision ID: 0003_vectors
Revises: 0002_collections
Create Date: 2026-11-28 08:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_vectors"
down_revision = "0002_collections"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "library_vectors",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("item", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item"], ["library_items.id"], ondelete="CASCADE", name="fk_library_vectors_item"
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("item", name="uq_library_vectors_item"),
        # ids never reused on SQLite either: a cached matrix checks count and largest id
        sqlite_autoincrement=True,
    )
    op.create_index("ix_library_vectors_owner_id", "library_vectors", ["owner", "id"])
    op.create_index("ix_library_vectors_owner_run", "library_vectors", ["owner", "run_id"])


def downgrade() -> None:
    op.drop_index("ix_library_vectors_owner_run", table_name="library_vectors")
    op.drop_index("ix_library_vectors_owner_id", table_name="library_vectors")
    op.drop_table("library_vectors")
