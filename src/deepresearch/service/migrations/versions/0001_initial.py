"""jobs, events, sources, evidence, results, usage and api keys

Revision ID: 0001
Revises:
Create Date: 2026-11-26 06:35:23.676918
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    # each table in its own helper, created in the order the first release created them
    _api_keys()
    _research_jobs()
    _job_events()
    _research_evidence()
    _research_results()
    _research_sources()
    _research_usage()


def _api_keys() -> None:
    """The API keys (only their hashes)."""
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("max_active_runs", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key_hash"),
    )


def _research_jobs() -> None:
    """The jobs, with their two listing indexes."""
    op.create_table(
        "research_jobs",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("stage", sa.String(length=32), nullable=True),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("recipe", sa.String(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=200), nullable=True),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.Column("usage", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner", "idempotency_key", name="uq_jobs_owner_idempotency"),
    )
    op.create_index("ix_jobs_owner_created", "research_jobs", ["owner", "created_at"], unique=False)
    op.create_index(
        "ix_jobs_status_created", "research_jobs", ["status", "created_at"], unique=False
    )


def _job_events() -> None:
    """Each job's events, numbered."""
    op.create_table(
        "job_events",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("stage", sa.String(length=32), nullable=True),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["job_id"], ["research_jobs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("job_id", "seq"),
    )


def _research_evidence() -> None:
    """Each job's evidence."""
    op.create_table(
        "research_evidence",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("evidence_id", sa.String(length=64), nullable=False),
        sa.Column("source_url", sa.Text(), nullable=False),
        sa.Column("quote", sa.Text(), nullable=False),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["job_id"], ["research_jobs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("job_id", "evidence_id"),
    )


def _research_results() -> None:
    """Each finished job's report."""
    op.create_table(
        "research_results",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("report", sa.JSON(), nullable=False),
        sa.Column("markdown", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["job_id"], ["research_jobs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("job_id"),
    )


def _research_sources() -> None:
    """Each job's sources and their scores."""
    op.create_table(
        "research_sources",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("url_hash", sa.String(length=64), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("domain", sa.String(length=255), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("tier", sa.String(length=32), nullable=False),
        sa.Column("decision", sa.String(length=16), nullable=True),
        sa.Column("cited", sa.Boolean(), nullable=False),
        sa.Column("final", sa.Float(), nullable=False),
        sa.Column("signal_score", sa.Float(), nullable=False),
        sa.Column("model_score", sa.Float(), nullable=True),
        sa.Column("credibility", sa.Float(), nullable=False),
        sa.Column("domain_authority", sa.Integer(), nullable=False),
        sa.Column("recency", sa.Float(), nullable=False),
        sa.Column("retrieval_relevance", sa.Float(), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["job_id"], ["research_jobs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("job_id", "url_hash"),
    )


def _research_usage() -> None:
    """Each job's model calls, counted."""
    op.create_table(
        "research_usage",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("stage", sa.String(length=32), nullable=True),
        sa.Column("role", sa.String(length=32), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("input_tokens", sa.Integer(), nullable=False),
        sa.Column("output_tokens", sa.Integer(), nullable=False),
        sa.Column("cached", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["job_id"], ["research_jobs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("job_id", "seq"),
    )


def downgrade() -> None:
    # ### commands auto generated by Alembic - please adjust! ###
    op.drop_table("research_usage")
    op.drop_table("research_sources")
    op.drop_table("research_results")
    op.drop_table("research_evidence")
    op.drop_table("job_events")
    op.drop_index("ix_jobs_status_created", table_name="research_jobs")
    op.drop_index("ix_jobs_owner_created", table_name="research_jobs")
    op.drop_table("research_jobs")
    op.drop_table("api_keys")
    # ### end Alembic commands ###
