"""``evaluate`` (``run --eval``): the report of a run is evaluated when the run ends, and
the evaluation travels with it (JSON, markdown, HTML). With a judge: the four RACE scores
with reasons; without a model: the figures only, saying the judge scores were skipped."""

from __future__ import annotations

import json
from pathlib import Path

from deepresearch.core.evaluate import citation_figures
from deepresearch.export.report_render import render
from deepresearch.models import RunEvent
from deepresearch.models.event_checks import EvalCompleted
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..event_schema import assert_events_match_schema
from .helpers import offline_settings


async def test_a_run_with_eval_carries_its_evaluation(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    model = ScriptedChatModel(research_script())
    events: list[RunEvent] = []
    settings = offline_settings(offline_web, tmp_path, evaluate=True)
    report = await run_research(
        hotpot_question, settings, models=dict.fromkeys(ROLES, model), sinks=[events.append]
    )
    assert report is not None and report.kind == "synthesized"
    result = report.evaluation
    assert result is not None
    figures = citation_figures(report.model_copy(update={"evaluation": None}))
    assert (result.citation_precision, result.citation_recall) == (
        figures.precision,
        figures.recall,
    )
    assert result.cited_sentences > 0 and result.coverage is not None
    assert [s.dimension for s in result.scores] == [
        "comprehensiveness",
        "insight",
        "instruction_following",
        "readability",
    ]
    assert all(s.reason for s in result.scores) and result.overall is not None
    # the process (seed 004): its figures, the judge's two scores and the 60/40 composite
    assert result.sources_read > 0 and result.distinct_domains > 0
    assert result.researched > 0 and result.queries_per_sub_question is not None
    assert [s.dimension for s in result.process_scores] == ["search_strategy", "source_diversity"]
    assert result.process_overall is not None
    assert result.composite == round(0.6 * result.overall + 0.4 * result.process_overall, 2)
    assert result.usage.calls == 1 and report.usage.by_stage["evaluate"].calls == 1
    (done,) = [e.data for e in events if isinstance(e.data, EvalCompleted)]
    assert done.citation_precision == result.citation_precision
    assert (done.overall, done.insight) == (result.overall, result.scores[1].score)
    assert (done.composite, done.process_overall) == (result.composite, result.process_overall)
    assert done.source_diversity == result.source_diversity
    assert "eval_completed" in assert_events_match_schema(events)
    assert "## Evaluation" in render(report, "md")
    assert '<section class="evaluation">' in render(report, "html")
    assert json.loads(render(report, "json"))["evaluation"]["overall"] == result.overall


async def test_without_a_model_the_figures_are_computed_and_the_judge_skipped(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", evaluate=True)
    events: list[RunEvent] = []
    report = await run_research(hotpot_question, settings, sinks=[events.append])
    assert report is not None and report.kind == "extractive"
    result = report.evaluation
    assert result is not None and result.scores == [] and result.overall is None
    assert result.judge_note.startswith("judge scores skipped: no judge model")
    # an extractive report quotes its sources: every cited sentence is its quote
    assert result.citation_precision == 1.0
    assert result.sub_questions >= 1
    # the process figures need no model either; the composite needs the judge
    assert result.source_diversity is not None and result.retry_share is not None
    assert result.process_scores == [] and result.composite is None
    assert len(result.covered) + len(result.uncovered) == result.sub_questions
    assert "Judge scores skipped: no judge model" in render(report, "md")
    # on the wire: no judge, so null overall and judge_model, and no dimension at all
    (done,) = [e for e in events if e.type == "eval_completed"]
    data = json.loads(done.model_dump_json())["data"]
    assert data["overall"] is None and data["judge_model"] is None
    assert data["citation_precision"] == 1.0 and "insight" not in data


async def test_a_run_without_eval_is_not_evaluated(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    events: list[RunEvent] = []
    settings = offline_settings(offline_web, tmp_path, model="none")
    report = await run_research(hotpot_question, settings, sinks=[events.append])
    assert report is not None and report.evaluation is None
    assert not [e for e in events if e.type == "eval_completed"]
    assert "## Evaluation" not in render(report, "md")


async def test_the_library_evaluates_a_stored_run_and_keeps_it_with_the_run(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    import deepresearch
    from deepresearch.runner import load_report

    settings = offline_settings(offline_web, tmp_path, model="none")
    report = await run_research(hotpot_question, settings)
    assert report is not None and report.evaluation is None
    result = await deepresearch.evaluate_async(report.run_id, settings=settings)
    figures = citation_figures(report)
    assert (result.citation_precision, result.citation_recall) == (
        figures.precision,
        figures.recall,
    )
    assert result.scores == [] and "no judge model" in result.judge_note
    stored = await load_report(settings, report.run_id)
    assert stored is not None and stored.evaluation == result
