"""The service's schema (SQLAlchemy Core). Alembic migrations in ``migrations/`` create
it; tests compare the two so they cannot drift."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("prefix", String(16), nullable=False),
    Column("max_active_runs", Integer, nullable=False, default=1),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True)),
)

research_jobs = Table(
    "research_jobs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("owner", String(32), nullable=False),
    Column("status", String(16), nullable=False),
    Column("stage", String(32)),
    Column("progress", Float, nullable=False, default=0.0),
    Column("question", Text, nullable=False),
    Column("recipe", String(32), nullable=False, default="research"),
    Column("options", JSON, nullable=False),
    Column("idempotency_key", String(200)),
    Column("request_hash", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Column("expires_at", DateTime(timezone=True)),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("lease_owner", String(64)),
    Column("lease_expires_at", DateTime(timezone=True)),
    Column("cancel_requested", Boolean, nullable=False, default=False),
    Column("error", Text),
    Column("counts", JSON, nullable=False),
    Column("usage", JSON, nullable=False),
    # a follow-up's place in its thread, from its followup_started event or its report
    # (a thread's first run has none): GET of a job lists the thread from these columns
    Column("thread_root", String(64)),
    Column("turn", Integer),
    Column("follows", String(64)),
    Column("topic_shift", Boolean),
    UniqueConstraint("owner", "idempotency_key", name="uq_jobs_owner_idempotency"),
    Index("ix_jobs_owner_created", "owner", "created_at"),
    Index("ix_jobs_status_created", "status", "created_at"),
    Index("ix_jobs_thread_root", "thread_root"),
)

job_events = Table(
    "job_events",
    metadata,
    Column(
        "job_id", String(64), ForeignKey("research_jobs.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("ts", DateTime(timezone=True), nullable=False),
    Column("type", String(40), nullable=False),
    Column("stage", String(32)),
    Column("message", Text, nullable=False),
    Column("data", JSON, nullable=False),
)

research_sources = Table(
    "research_sources",
    metadata,
    Column(
        "job_id", String(64), ForeignKey("research_jobs.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("url_hash", String(64), primary_key=True),
    Column("url", Text, nullable=False),
    Column("domain", String(255), nullable=False),
    Column("title", Text, nullable=False),
    Column("tier", String(32), nullable=False),
    Column("decision", String(16)),
    Column("cited", Boolean, nullable=False),
    Column("final", Float, nullable=False),
    Column("signal_score", Float, nullable=False),
    Column("model_score", Float),
    Column("credibility", Float, nullable=False),
    Column("domain_authority", Integer, nullable=False),
    Column("recency", Float, nullable=False),
    Column("retrieval_relevance", Float, nullable=False),
    Column("scores", JSON, nullable=False),
    Column("reason", Text, nullable=False),
)

research_evidence = Table(
    "research_evidence",
    metadata,
    Column(
        "job_id", String(64), ForeignKey("research_jobs.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("evidence_id", String(64), primary_key=True),
    Column("source_url", Text, nullable=False),
    Column("quote", Text, nullable=False),
    Column("verified", Boolean, nullable=False),
    Column("detail", JSON, nullable=False),
)

research_results = Table(
    "research_results",
    metadata,
    Column(
        "job_id", String(64), ForeignKey("research_jobs.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("kind", String(32), nullable=False),
    Column("report", JSON, nullable=False),
    Column("markdown", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

research_usage = Table(
    "research_usage",
    metadata,
    Column(
        "job_id", String(64), ForeignKey("research_jobs.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("stage", String(32)),
    Column("role", String(32), nullable=False),
    Column("model", String(200), nullable=False),
    Column("input_tokens", Integer, nullable=False),
    Column("output_tokens", Integer, nullable=False),
    Column("cached", Boolean, nullable=False),
)

#: a finished job's evaluation (``POST /v1/research/{id}/eval``; ``service/evals.py``)
research_evals = Table(
    "research_evals",
    metadata,
    Column(
        "job_id", String(64), ForeignKey("research_jobs.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("evaluation", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

#: what a job waiting for a person asks, and the answer once given (issue 15;
#: ``service/store/inputs.py``): one row per pause, named by the run's interrupt id
job_inputs = Table(
    "job_inputs",
    metadata,
    Column(
        "job_id", String(64), ForeignKey("research_jobs.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("request_id", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("request", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("reply", JSON),
    Column("reply_hash", String(64)),
    Column("answered_at", DateTime(timezone=True)),
)

#: watches (issue 25, ``service/store/watches.py``): a question re-run on a schedule.
#: ``next_due`` moves on in the transaction that queues a due time's job, so a due time
#: starts once however many schedulers look
watches = Table(
    "watches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("owner", String(32), nullable=False),
    Column("question", Text, nullable=False),
    Column("schedule", String(200), nullable=False),
    Column("options", JSON, nullable=False),
    Column("state", String(16), nullable=False),
    Column("thread", String(64)),
    Column("next_due", DateTime(timezone=True), nullable=False),
    Column("last_run", String(64)),
    Column("last_run_at", DateTime(timezone=True)),
    Column("webhook_url", Text),
    Column("webhook_secret", String(64)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    # a due time the key's submission rate limit held back: not claimed before this
    # time, and why (shown with the watch); cleared when the due time is claimed
    Column("deferred_until", DateTime(timezone=True)),
    Column("deferred_reason", Text),
    Index("ix_watches_owner_created", "owner", "created_at"),
    Index("ix_watches_state_due", "state", "next_due"),
)

#: one row per due time a watch ran: the job it queued, then (once the job ended) the
#: change report, written by whoever holds the row's lease (``claimed_by``)
watch_runs = Table(
    "watch_runs",
    metadata,
    Column("watch_id", String(32), ForeignKey("watches.id", ondelete="CASCADE"), primary_key=True),
    Column("due_at", DateTime(timezone=True), primary_key=True),
    Column("job_id", String(64), nullable=False),
    Column("previous_run", String(64)),
    Column("status", String(16), nullable=False),
    Column("claimed_by", String(64)),
    Column("lease_expires_at", DateTime(timezone=True)),
    Column("snapshot", JSON),
    Column("report", JSON),
    Column("summary", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("reported_at", DateTime(timezone=True)),
    Index("ix_watch_runs_status", "status"),
)

#: the webhook outbox (``service/store/deliveries.py``): one row per change report to POST,
#: written in the transaction that writes the report, so a delivery outlives the process
#: that queued it. ``pending`` rows are claimed like due watches: the claim moves
#: ``next_attempt_at`` a lease ahead, a failed attempt moves it by the backoff, and a row
#: whose attempts are spent (or that the receiver refused) becomes ``failed``
watch_deliveries = Table(
    "watch_deliveries",
    metadata,
    Column("watch_id", String(32), ForeignKey("watches.id", ondelete="CASCADE"), primary_key=True),
    Column("due_at", DateTime(timezone=True), primary_key=True),
    Column("url", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", DateTime(timezone=True), nullable=False),
    Column("claimed_by", String(64)),
    Column("last_error", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("delivered_at", DateTime(timezone=True)),
    Index("ix_watch_deliveries_status_next", "status", "next_attempt_at"),
)
