"""job_inputs: what a job waiting for a person asks, and the answer

Revision ID: 0003_inputs
Revises: 0002_evals
Create Date: 2026-11-26 14:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_inputs"
down_revision = "0002_evals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # the job's status AWAITING_INPUT fits the existing status column (String(16))
    op.create_table(
        "job_inputs",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("request_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reply", sa.JSON(), nullable=True),
        sa.Column("reply_hash", sa.String(length=64), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["job_id"], ["research_jobs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("job_id", "request_id"),
    )


def downgrade() -> None:
    op.drop_table("job_inputs")
