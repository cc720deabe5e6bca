"""a follow-up's place in its thread on its job's row (GET of a job lists the thread from
the service database instead of reading the run's checkpoints)

Revision ID: 0006_job_threads
Revises: 0005_watch_outbox
Create Date: 2026-11-28 10:40:00
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006_job_threads"
down_revision = "0005_watch_outbox"
branch_labels = None
depends_on = None

THREAD_COLUMNS = ("thread_root", "turn", "follows", "topic_shift")


def upgrade() -> None:
    # plain ALTER TABLE (SQLite too): a batch copy of ``research_jobs`` would
    # cascade-delete its events under SQLite's foreign keys
    op.add_column("research_jobs", sa.Column("thread_root", sa.String(length=64)))
    op.add_column("research_jobs", sa.Column("turn", sa.Integer()))
    op.add_column("research_jobs", sa.Column("follows", sa.String(length=64)))
    op.add_column("research_jobs", sa.Column("topic_shift", sa.Boolean()))
    op.create_index("ix_jobs_thread_root", "research_jobs", ["thread_root"])
    _backfill()


def _backfill() -> None:
    """Follow-ups stored before this revision: from their ``followup_started`` event, else
    from the ``followup`` their report carries."""
    conn = op.get_bind()
    events = sa.table(
        "job_events", sa.column("job_id"), sa.column("type"), sa.column("data", sa.JSON)
    )
    results = sa.table("research_results", sa.column("job_id"), sa.column("report", sa.JSON))
    jobs = sa.table("research_jobs", sa.column("id"), *(sa.column(c) for c in THREAD_COLUMNS))
    found: dict[str, dict[str, Any]] = {}
    for job_id, report in conn.execute(sa.select(results.c.job_id, results.c.report)):
        followup = report.get("followup") if isinstance(report, dict) else None
        if isinstance(followup, dict):
            found[job_id] = followup
    rows = conn.execute(
        sa.select(events.c.job_id, events.c.data).where(events.c.type == "followup_started")
    )
    for job_id, data in rows:
        if isinstance(data, dict):
            found[job_id] = data
    for job_id, info in found.items():
        conn.execute(
            sa.update(jobs)
            .where(jobs.c.id == job_id)
            .values(
                thread_root=str(info["root"]),
                turn=int(info["turn"]),
                follows=str(info["follows"]),
                topic_shift=bool(info.get("topic_shift", False)),
            )
        )


def downgrade() -> None:
    op.drop_index("ix_jobs_thread_root", table_name="research_jobs")
    for name in reversed(THREAD_COLUMNS):
        op.drop_column("research_jobs", name)
