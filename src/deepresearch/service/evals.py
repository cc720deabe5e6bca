"""Evaluations of finished jobs (``POST /v1/research/{id}/eval``): run through the same
``evaluate_run`` as ``deepresearch eval`` (which stores the evaluation in the run's
checkpoint) and kept in the ``research_evals`` table, one row per job, the latest."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, delete, insert, select

from deepresearch.models import EvalResult
from deepresearch.service import tables as t


def save_evaluation(engine: Engine, job_id: str, result: EvalResult) -> None:
    """Store ``result`` as the job's evaluation, replacing an earlier one."""
    with engine.begin() as conn:
        conn.execute(delete(t.research_evals).where(t.research_evals.c.job_id == job_id))
        conn.execute(
            insert(t.research_evals).values(
                job_id=job_id,
                evaluation=result.model_dump(mode="json"),
                created_at=datetime.now(UTC),
            )
        )


def load_evaluation(engine: Engine, job_id: str) -> dict[str, Any] | None:
    """The job's evaluation: the latest one asked for, else the one its run made
    (``evaluate``, in the stored report), else None."""
    with engine.connect() as conn:
        row = conn.execute(
            select(t.research_evals.c.evaluation).where(t.research_evals.c.job_id == job_id)
        ).first()
        if row is not None:
            return dict(row.evaluation)
        stored = conn.execute(
            select(t.research_results.c.report).where(t.research_results.c.job_id == job_id)
        ).first()
    found = dict(stored.report).get("evaluation") if stored is not None else None
    return dict(found) if isinstance(found, dict) else None
