"""watches and watch_runs: questions re-run on a schedule, and their change reports

Revision ID: 0004_watches
Revises: 0003_inputs
Create Date: 2026-11-28 04:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_watches"
down_revision = "0003_inputs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "watches",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=32), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("schedule", sa.String(length=200), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("thread", sa.String(length=64), nullable=True),
        sa.Column("next_due", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_run", sa.String(length=64), nullable=True),
        sa.Column("last_run_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("webhook_url", sa.Text(), nullable=True),
        sa.Column("webhook_secret", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_watches_owner_created", "watches", ["owner", "created_at"])
    op.create_index("ix_watches_state_due", "watches", ["state", "next_due"])
    op.create_table(
        "watch_runs",
        sa.Column("watch_id", sa.String(length=32), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("previous_run", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("snapshot", sa.JSON(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["watch_id"], ["watches.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("watch_id", "due_at"),
    )
    op.create_index("ix_watch_runs_status", "watch_runs", ["status"])


def downgrade() -> None:
    op.drop_index("ix_watch_runs_status", table_name="watch_runs")
    op.drop_table("watch_runs")
    op.drop_index("ix_watches_state_due", table_name="watches")
    op.drop_index("ix_watches_owner_created", table_name="watches")
    op.drop_table("watches")
