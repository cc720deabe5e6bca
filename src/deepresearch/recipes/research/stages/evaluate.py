"""Evaluate: the finished report's figures (``core.evaluate``: citation precision and
recall, sub-question coverage, no model needed) and, when a judge model is there, its
scores with reasons on DeepResearch Bench's four RACE dimensions. As a graph node it runs
after the audit when ``evaluate`` is set (``run --eval``); ``deepresearch eval RUN_ID``
and the API evaluate a stored run with the same ``evaluate_report``
(``deepresearch.recipes.research.evaluation``).

RACE (DeepResearch Bench, Du et al. 2025) scores a report against a reference report with
criteria it derives per task; there is no reference here, so the judge scores the report
on its own, 0-10 per dimension, against the general reading of each dimension below."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

from langgraph.runtime import Runtime
from pydantic import BaseModel, field_validator

from deepresearch.context import RunContext
from deepresearch.core.evaluate import citation_figures, coverage
from deepresearch.export.report_render import to_markdown
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.llm.gateway import Gateway
from deepresearch.models import DimensionScore, EvalResult, Report, SubQuestion, Usage
from deepresearch.models.evaluation import DIMENSIONS
from deepresearch.models.event_checks import EvalCompleted
from deepresearch.models.event_payloads import StageCompleted, StageStarted
from deepresearch.models.report import REPLY_KINDS
from deepresearch.recipes.research.state import RunState

STAGE = "evaluate"
MAX_REPORT_CHARS = 40_000

SYSTEM = f"""You evaluate a research report written in answer to a question. {DATA_RULE}
Score the report from 0 to 10 on each of four dimensions, each with a one or two sentence
reason that names what the score rests on:
- comprehensiveness: does it cover the areas a complete answer needs (every part of the
  question, the main facts, figures and viewpoints), without leaving out anything important?
- insight: does it go beyond restating facts: explaining causes, consequences and
  relationships, weighing evidence that disagrees, drawing conclusions the evidence supports?
- instruction_following: does it answer exactly the question asked (its scope, its parts,
  any form or constraint it states), directly and without drifting off topic?
- readability: is it clearly structured and easy to follow, in fluent, precise language,
  with facts and citations presented so a reader can use them?
10 is what an expert's report would get, 5 is adequate, 0 is useless. Judge the report as
written; do not reward length for its own sake."""


class Scored(BaseModel):
    score: float
    reason: str = ""

    @field_validator("score")
    @classmethod
    def _scale(cls, value: float) -> float:
        if 10.0 < value <= 100.0:  # a percentage
            value /= 10.0
        return min(max(value, 0.0), 10.0)


class RaceScores(BaseModel):
    comprehensiveness: Scored
    insight: Scored
    instruction_following: Scored
    readability: Scored


async def evaluate(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    report = state.get("report")
    if not ctx.policy.evaluate or report is None or report.kind in REPLY_KINDS:
        return {}
    ctx.bus.emit(StageStarted(), stage=STAGE, message="Evaluating the report")
    plan = state.get("plan")
    result = await evaluate_report(
        report,
        plan.sub_questions if plan is not None else [],
        state.get("sub_questions", []),
        ctx.gateway,
        ctx.clock,
    )
    announce(ctx, result)
    ctx.bus.emit(StageCompleted(), stage=STAGE)
    return {"report": report.model_copy(update={"evaluation": result})}


async def evaluate_report(
    report: Report,
    planned: list[SubQuestion],
    every: list[SubQuestion],
    gateway: Gateway,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> EvalResult:
    """The figures of ``report`` and, when ``gateway`` has a judge, its RACE scores."""
    figures = await asyncio.to_thread(citation_figures, report)
    covered = coverage(report, planned, every)
    before = gateway.usage.model_copy(deep=True)
    scores: list[DimensionScore] = []
    note = ""
    if not gateway.has_model("judge"):
        note = "judge scores skipped: no judge model (the figures above need none)"
    else:
        judged = await gateway.structured(
            "judge", RaceScores, system=SYSTEM, user=_prompt(report), stage=STAGE
        )
        if judged is None:
            note = "judge scores skipped: the judge model gave no usable answer"
        else:
            scores = [
                DimensionScore(
                    dimension=name,
                    score=round(getattr(judged, name).score, 2),
                    reason=" ".join(getattr(judged, name).reason.split())[:500],
                )
                for name in DIMENSIONS
            ]
    return EvalResult(
        run_id=report.run_id,
        citation_precision=figures.precision,
        citation_recall=figures.recall,
        coverage=covered.share,
        cited_sentences=figures.cited,
        supported_cited=figures.supported_cited,
        factual_sentences=figures.factual,
        factual_supported=figures.factual_supported,
        sub_questions=len(covered.planned),
        covered=covered.covered,
        uncovered=covered.uncovered,
        scores=scores,
        overall=round(sum(s.score for s in scores) / len(scores), 2) if scores else None,
        judge_model=gateway.model_name("judge") if scores else None,
        judge_note=note,
        usage=_spent(gateway.usage, before),
        created_at=clock(),
    )


def announce(ctx: RunContext, result: EvalResult) -> None:
    ctx.bus.emit(event_data(result), stage=STAGE, message=summary(result))


def summary(result: EvalResult) -> str:
    """One line: the figures and the judge's mean."""

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.0%}"

    judge = (
        f"; judge {result.overall:.1f}/10"
        if result.overall is not None
        else f"; {result.judge_note}"
    )
    return (
        f"Evaluation: citation precision {pct(result.citation_precision)}, recall "
        f"{pct(result.citation_recall)}, sub-question coverage {pct(result.coverage)}{judge}"
    )


def event_data(result: EvalResult) -> EvalCompleted:
    """The ``eval_completed`` payload: the figures, and each scored dimension's score."""
    scores = {score.dimension: score.score for score in result.scores}
    return EvalCompleted(
        citation_precision=result.citation_precision,
        citation_recall=result.citation_recall,
        coverage=result.coverage,
        overall=result.overall,
        judge_model=result.judge_model,
        comprehensiveness=scores.get("comprehensiveness"),
        insight=scores.get("insight"),
        instruction_following=scores.get("instruction_following"),
        readability=scores.get("readability"),
    )


def _prompt(report: Report) -> str:
    # the report holds model and page text: it reaches the judge fenced, as data
    text = to_markdown(report.model_copy(update={"evaluation": None}))[:MAX_REPORT_CHARS]
    return f"Question: {report.question}\n\nReport:\n" + data_block("source", text, kind="report")


def _spent(now: Usage, before: Usage) -> Usage:
    return Usage(
        calls=now.calls - before.calls,
        failed_calls=now.failed_calls - before.failed_calls,
        input_tokens=now.input_tokens - before.input_tokens,
        output_tokens=now.output_tokens - before.output_tokens,
    )
