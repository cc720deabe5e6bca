"""sections: planned reports (issue 16) at standard depth, with the latency-modelled
scripted model over the offline web of ``end_to_end``.

Three writers answer the same questions: ``careful`` (``research_script()``: every part
copied from the note it cites), ``faulty`` (each section draft breaks a table row, states
a figure no quote holds and cites a label it was not given; a careful reflector removes
what the problems name) and ``unrepaired`` (the same faults, a reflector that returns the
draft unchanged, so each section falls back to its verified quotes). Figures per writer:
the critical path of sequential model calls (target <= 10 at standard depth), the input
tokens per report (target <= 1.5x the 17.7k of the single-draft writer, measured
2026-11-26 05:47 UTC), and the share of planned sections that passed validation before
repair (first draft) and after it (first draft or repair), and that fell back; and each
report's evaluation figures that need no model (``deepresearch eval``: citation precision
and recall, sub-question coverage).
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import BenchResult, Options, mean
from bench.critical_path import call_intervals, critical_path
from bench.end_to_end import corpus, settings_for
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import ReportReady
from deepresearch.recipes.research.evaluation import evaluate_run
from deepresearch.runner import run_research
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES
from deepresearch.testing.corpora import HotpotQuestion, hotpotqa_questions
from deepresearch.testing.research_script import SECTION_FAULTS, research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

DEPTH = "standard"
#: input tokens per report of the single-draft writer at standard depth (docs/benchmarks.md)
BASELINE_INPUT_TOKENS = 17_691
TARGET_INPUT_RATIO = 1.5
TARGET_CRITICAL_PATH = 10
WRITERS: dict[str, dict[str, Any]] = {
    "careful": {},
    "faulty": {"section_faults": SECTION_FAULTS},
    "unrepaired": {"section_faults": SECTION_FAULTS, "repair": False},
}

NOTES = (
    "Standard depth, the offline web of end_to_end, the scripted model delayed by "
    "latency_s + per_token_s * output tokens. careful: research_script(); faulty: every "
    "section draft loses a table cell, states a figure (1642) no quote holds and cites a "
    "label it was not given, and a careful reflector removes the parts the problems name; "
    "unrepaired: the same faults and a reflector that returns the draft unchanged. "
    "critical_path_calls: the longest chain of sequential model calls (bench/critical_path.py), "
    "mean and max over the questions (target <= 10). input_tokens: per report, mean; "
    "input_ratio: over the single-draft writer's 17,691 at standard depth (target <= 1.5). "
    "pass_before: planned sections whose first draft passed validation (schema, every "
    "citation a PASS quote, every figure, date and name in a quote it cites) / planned; "
    "pass_after: those plus the ones a repair made pass; fallback: sections replaced by "
    "their verified quotes. The scripted writer copies from its notes, so pass_before for "
    "careful measures the validator's false alarms on faithful text, not a real model. "
    "eval_*: deepresearch eval's figures computed without a model (citation_precision: "
    "cited sentences their citations support; citation_recall: factual sentences with a "
    "supporting citation; coverage: planned sub-questions the report cites evidence for), "
    "means over the reports; the judge's RACE scores are not measured here (the scripted "
    "judge's scores would say nothing)."
)


@dataclass
class Outcome:
    path_calls: int
    input_tokens: int
    planned: int
    first_pass: int
    repaired: int
    fallback: int
    kind: str
    precision: float | None
    recall: float | None
    coverage: float | None


def run(options: Options) -> BenchResult:
    documents = corpus(options.data_dir)
    questions = hotpotqa_questions(options.data_dir)[: options.questions]
    result = BenchResult(notes=NOTES)
    result.params = {
        "questions": len(questions),
        "question_ids": [q.id for q in questions],
        "depth": DEPTH,
        "latency_s": options.latency_s,
        "per_token_s": options.per_token_s,
        "baseline_input_tokens": BASELINE_INPUT_TOKENS,
    }
    with OfflineWeb(documents) as web:
        for name, script in WRITERS.items():
            outcomes = [asyncio.run(_one(web, q, options, script)) for q in questions]
            _add(result, name, outcomes)
    return result


def _add(result: BenchResult, name: str, outcomes: list[Outcome]) -> None:
    add = result.add
    paths = [o.path_calls for o in outcomes]
    add(f"{name}.critical_path_calls", mean(paths), "calls")
    add(f"{name}.critical_path_calls_max", max(paths), "calls")
    add(
        f"{name}.critical_path_within_target", sum(p <= TARGET_CRITICAL_PATH for p in paths), "runs"
    )
    tokens = mean([o.input_tokens for o in outcomes])
    add(f"{name}.input_tokens", tokens, "tokens (est.)")
    add(f"{name}.input_ratio", tokens / BASELINE_INPUT_TOKENS, "x single draft", digits=3)
    planned = sum(o.planned for o in outcomes)
    add(f"{name}.sections_planned", planned / len(outcomes), "sections per report")
    if planned:
        first = sum(o.first_pass for o in outcomes)
        repaired = sum(o.repaired for o in outcomes)
        add(f"{name}.pass_before", first / planned, "fraction", digits=3)
        add(f"{name}.pass_after", (first + repaired) / planned, "fraction", digits=3)
        add(f"{name}.fallback", sum(o.fallback for o in outcomes) / planned, "fraction", digits=3)
    add(f"{name}.synthesized", sum(o.kind == "synthesized" for o in outcomes), "runs")
    for figure in ("precision", "recall", "coverage"):
        values = [v for o in outcomes if (v := getattr(o, figure)) is not None]
        if values:
            label = figure if figure == "coverage" else f"citation_{figure}"
            add(f"{name}.eval_{label}", mean(values), "fraction", digits=3)


async def _one(
    web: OfflineWeb, question: HotpotQuestion, options: Options, script: dict[str, Any]
) -> Outcome:
    events: list[RunEvent] = []
    with tempfile.TemporaryDirectory(prefix="bench-sections-") as folder:
        settings = settings_for(web, Path(folder), DEPTH, "scripted")
        model = ScriptedChatModel(
            research_script(**script),
            latency_s=options.latency_s,
            per_token_s=options.per_token_s,
        )
        report = await run_research(
            question.question, settings, models=dict.fromkeys(ROLES, model), sinks=[events.append]
        )
        assert isinstance(report, Report), "the run paused or ended without a report"
        scored = await evaluate_run(
            settings, ModelSettings.of(settings), report.run_id, judge_model="none"
        )
    path = critical_path(
        call_intervals(events, latency_s=options.latency_s, per_token_s=options.per_token_s)
    )
    ready = next(e.data for e in events if isinstance(e.data, ReportReady))
    return Outcome(
        path_calls=len(path.calls),
        input_tokens=report.usage.input_tokens,
        planned=ready.sections_planned or 0,
        first_pass=ready.sections_first_pass or 0,
        repaired=ready.sections_repaired or 0,
        fallback=ready.sections_fallback or 0,
        kind=report.kind,
        precision=scored.citation_precision,
        recall=scored.citation_recall,
        coverage=scored.coverage,
    )
