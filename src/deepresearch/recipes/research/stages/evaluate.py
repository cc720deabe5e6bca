"""Evaluate: the finished report's figures (``core.evaluate``: citation precision and
recall, sub-question coverage, no model needed) and, when a judge model is there, its
scores with reasons on DeepResearch Bench's four RACE dimensions; and the research
process's (seed 004): figures without a model (``core.process_quality``: source
diversity, queries per sub-question, retry share) and, in the same judge call, scores for
search strategy and source diversity, weighed with the report's into the seed's 60/40
composite. As a graph node it runs
after the audit when ``evaluate`` is set (``run --eval``); ``deepresearch eval RUN_ID``
and the API evaluate a stored run with the same ``evaluate_report``
(``deepresearch.recipes.research.evaluation``).

RACE (DeepResearch Bench, Du et al. 2025) scores a report against a reference report with
criteria it derives per task; there is no reference here, so the judge scores the report
on its own, 0-10 per dimension, against the general reading of each dimension below."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime

from langgraph.runtime import Runtime
from pydantic import BaseModel, field_validator

from deepresearch.context import RunContext
from deepresearch.core.evaluate import citation_figures, coverage
from deepresearch.core.process_quality import ProcessFigures, composite, process_figures
from deepresearch.export.report_render import to_markdown
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.llm.gateway import Gateway
from deepresearch.models import DimensionScore, EvalResult, Report, Source, SubQuestion, Usage
from deepresearch.models.evaluation import DIMENSIONS, PROCESS_DIMENSIONS
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
written; do not reward length for its own sake.
When the research process is given (the sub-questions with their search queries, and the
sites of the pages read), also score it from 0 to 10, each with a reason:
- search_strategy: do the queries cover each sub-question from useful angles, precisely,
  and was a sub-question that found little searched again differently?
- source_diversity: do the pages come from many independent sites of the kinds the
  question needs, rather than a few sites or one kind of source?"""
#: the most sub-questions and domains the process block lists
MAX_PROCESS_LINES = 40


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
    # the process (seed 004); optional, so a judge that leaves them out still scores the report
    search_strategy: Scored | None = None
    source_diversity: Scored | None = None


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
        sources=state.get("sources", {}).values(),
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
    *,
    sources: Iterable[Source] = (),
) -> EvalResult:
    """The figures of ``report`` and of the process that made it (``sources``: every page
    the run read), and, when ``gateway`` has a judge, its RACE and process scores."""
    figures = await asyncio.to_thread(citation_figures, report)
    covered = coverage(report, planned, every)
    process = process_figures(sources, every)
    before = gateway.usage.model_copy(deep=True)
    scores, process_scores, note = await _judged(report, gateway, process, every, sources)
    overall = _mean(scores)
    process_overall = _mean(process_scores)
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
        overall=overall,
        judge_model=gateway.model_name("judge") if scores else None,
        judge_note=note,
        sources_read=process.sources,
        distinct_domains=process.domains,
        source_diversity=process.diversity,
        researched=process.researched,
        queries_per_sub_question=process.queries_per_sub_question,
        retried=process.retried,
        retry_share=process.retry_share,
        process_scores=process_scores,
        process_overall=process_overall,
        composite=composite(overall, process_overall),
        usage=_spent(gateway.usage, before),
        created_at=clock(),
    )


async def _judged(
    report: Report,
    gateway: Gateway,
    process: ProcessFigures,
    every: Sequence[SubQuestion],
    sources: Iterable[Source],
) -> tuple[list[DimensionScore], list[DimensionScore], str]:
    """The judge's report scores, its process scores, and why there are none if none."""
    if not gateway.has_model("judge"):
        return [], [], "judge scores skipped: no judge model (the figures above need none)"
    user = _prompt(report) + _process_block(process, every, sources)
    judged = await gateway.structured("judge", RaceScores, system=SYSTEM, user=user, stage=STAGE)
    if judged is None:
        return [], [], "judge scores skipped: the judge model gave no usable answer"
    scores = [_score(name, getattr(judged, name)) for name in DIMENSIONS]
    process_scores = [
        _score(name, scored)
        for name in PROCESS_DIMENSIONS
        if (scored := getattr(judged, name)) is not None
    ]
    return scores, process_scores, ""


def _score(name: str, scored: Scored) -> DimensionScore:
    return DimensionScore.model_validate(
        {
            "dimension": name,
            "score": round(scored.score, 2),
            "reason": " ".join(scored.reason.split())[:500],
        }
    )


def _mean(scores: Sequence[DimensionScore]) -> float | None:
    return round(sum(s.score for s in scores) / len(scores), 2) if scores else None


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
    if result.composite is not None:
        judge += f", composite {result.composite:.1f}/10 (60% report, 40% process)"
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
        source_diversity=result.source_diversity,
        process_overall=result.process_overall,
        composite=result.composite,
    )


def _prompt(report: Report) -> str:
    # the report holds model and page text: it reaches the judge fenced, as data
    text = to_markdown(report.model_copy(update={"evaluation": None}))[:MAX_REPORT_CHARS]
    return f"Question: {report.question}\n\nReport:\n" + data_block("source", text, kind="report")


def _process_block(
    process: ProcessFigures, every: Sequence[SubQuestion], sources: Iterable[Source]
) -> str:
    """The research process as the judge reads it: each researched sub-question with its
    queries and passes, and the sites read with how many pages each (run data: fenced)."""
    if not process.researched:
        return ""
    lines = [
        f"- {sq.text} (searched {sq.attempts}x): " + "; ".join(sq.queries)
        for sq in every
        if sq.attempts > 0
    ][:MAX_PROCESS_LINES]
    sites: dict[str, int] = {}
    for source in sources:
        sites[source.domain] = sites.get(source.domain, 0) + 1
    ranked = sorted(sites.items(), key=lambda item: (-item[1], item[0]))[:MAX_PROCESS_LINES]
    text = (
        "Sub-questions and their search queries:\n"
        + "\n".join(lines)
        + f"\n\nSites of the {process.sources} pages read ({process.domains} distinct):\n"
        + "\n".join(f"- {site or 'unknown'}: {count}" for site, count in ranked)
    )
    return "\n\nResearch process:\n" + data_block("source", text, kind="process")


def _spent(now: Usage, before: Usage) -> Usage:
    return Usage(
        calls=now.calls - before.calls,
        failed_calls=now.failed_calls - before.failed_calls,
        input_tokens=now.input_tokens - before.input_tokens,
        output_tokens=now.output_tokens - before.output_tokens,
    )
