"""watch_deliveries (a durable webhook outbox) and a watch's deferral by its key's rate limit

Revision ID: 0005_watch_outbox
Revises: 0004_watches
Create Date: 2026-11-28 08:20:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_watch_outbox"
down_revision = "0004_watches"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "watch_deliveries",
        sa.Column("watch_id", sa.String(length=32), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["watch_id"], ["watches.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("watch_id", "due_at"),
    )
    op.create_index(
        "ix_watch_deliveries_status_next", "watch_deliveries", ["status", "next_attempt_at"]
    )
    # plain ALTER TABLE (SQLite too): a batch copy of ``watches`` would cascade-delete
    # its runs under SQLite's foreign keys
    op.add_column("watches", sa.Column("deferred_until", sa.DateTime(timezone=True)))
    op.add_column("watches", sa.Column("deferred_reason", sa.Text()))


def downgrade() -> None:
    op.drop_column("watches", "deferred_reason")
    op.drop_column("watches", "deferred_until")
    op.drop_index("ix_watch_deliveries_status_next", table_name="watch_deliveries")
    op.drop_table("watch_deliveries")
