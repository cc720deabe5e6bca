"""Evaluations of finished jobs (``POST /v1/research/{id}/eval``): run through the same
``evaluate_run`` as ``deepresearch eval`` (which stores the evaluation in the run's
checkpoint) and kept in the ``research_evals`` table, one row per job, the latest.
``evaluated_result`` is a finished job's stored document with that evaluation in it, as
the API's report endpoint and the MCP server's ``get_report`` hand it out."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, delete, insert

from deepresearch.export.formats import render_text
from deepresearch.models import EvalResult
from deepresearch.recipes.registry import get_recipe
from deepresearch.service import tables as t
from deepresearch.service.jobs import Job
from deepresearch.service.store import JobStore
from deepresearch.service.store.views import evaluation_of


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
    """The job's evaluation: the latest one asked for, else the one its run made, else
    None (``store.views.evaluation_of``)."""
    with engine.connect() as conn:
        return evaluation_of(conn, job_id)


def evaluated_result(store: JobStore, job: Job) -> tuple[str, dict[str, Any], str] | None:
    """The finished job's stored (kind, document, markdown), or None; when it was
    evaluated after it was stored, with its evaluation in the document and the markdown
    rendered again (by the job's recipe), so every format shows it."""
    found = store.result(job.id)
    if found is None:
        return None
    kind, document, markdown = found
    evaluation = load_evaluation(store.engine, job.id)
    if evaluation is not None and document.get("evaluation") != evaluation:
        document = {**document, "evaluation": evaluation}
        recipe = get_recipe(job.recipe)
        markdown = render_text(recipe, recipe.result_model.model_validate(document), "md")
    return kind, document, markdown
