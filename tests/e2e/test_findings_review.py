"""The findings review before writing (issue 15, seed 002): the run pauses with its
verified findings; findings the person drops never reach the report (markdown or JSON);
a named gap is researched in exactly one more wave, from the gap's own words, and what it
finds can be cited; bad answers are refused with the reason and the run keeps waiting.
Real graph, checkpointer, search adapter and fetcher over the offline web; without a
model, or with only the model's words scripted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import deepresearch
from deepresearch.core.planning import fallback_queries
from deepresearch.errors import InputRequired, InvalidInput
from deepresearch.export.formats import render_bytes
from deepresearch.models import Report, RunEvent
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.registry import DEFAULT_RECIPE, get_recipe
from deepresearch.recipes.research.stages import claims
from deepresearch.runner import pending_input, run_research
from deepresearch.settings_groups import RunLimits
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import assert_citations_hold, offline_settings

GAP = "Where was Ed Wood born?"
CLAIMS_FIRST_LINE = claims.SYSTEM.splitlines()[0]


def _rendered(report: Report) -> tuple[str, dict[str, object]]:
    recipe = get_recipe(DEFAULT_RECIPE)
    markdown = render_bytes(recipe, report, "md").decode()
    return markdown, json.loads(render_bytes(recipe, report, "json"))


async def test_dropped_findings_never_reach_the_report(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", review_findings=True)
    events: list[RunEvent] = []
    request = await run_research(
        hotpot_question, settings, run_id="findings-1", sinks=[events.append]
    )
    assert isinstance(request, InputRequest) and request.kind == "findings"
    assert len(request.findings) >= 2
    assert all(item.quote and item.source_url for item in request.findings)
    assert events[-1].type == "input_requested" and events[-1].stage == "review_findings"
    assert [f.id for f in events[-1].data.findings] == [f.id for f in request.findings]  # type: ignore[union-attr]
    assert "findings_checked" in [e.type for e in events]  # the check ran first
    assert not any(e.stage == "write" for e in events)  # nothing written before the review
    assert await pending_input(settings, "findings-1") == request

    ids = [item.id for item in request.findings]
    # the same findings approved: the report carries and cites them (what a drop removes)
    with pytest.raises(InputRequired) as caught:  # the library: the run waits
        await deepresearch.research_async(
            hotpot_question,
            settings=offline_settings(
                offline_web, tmp_path / "approved", model="none", review_findings=True
            ),
            run_id="findings-1",
        )
    approved = caught.value.request
    assert [item.id for item in approved.findings] == ids
    whole = await deepresearch.reply_async(  # the library's answer
        "findings-1",
        {"action": "approve"},
        settings=offline_settings(offline_web, tmp_path / "approved", model="none"),
    )
    assert isinstance(whole, Report)
    dropped = ids[:1]
    assert set(dropped) <= set(whole.cited_evidence_ids())
    markdown, data = _rendered(whole)
    assert request.findings[0].quote in markdown and dropped[0] in json.dumps(data)

    events.clear()
    report = await run_research(
        None,
        settings,
        run_id="findings-1",
        resume=True,
        reply={"action": "drop", "drop": [*dropped, *dropped]},  # a repeat counts once
        sinks=[events.append],
    )
    assert isinstance(report, Report) and report.kind == "extractive"
    assert {item.id for item in report.evidence} == set(ids) - set(dropped)
    assert not set(dropped) & set(report.cited_evidence_ids())
    markdown, data = _rendered(report)
    assert request.findings[0].quote not in markdown
    assert dropped[0] not in json.dumps(data)
    assert request.findings[1].quote in markdown  # the kept one is still there
    received = next(e for e in events if e.type == "input_received")
    assert received.data.kind == "findings" and received.data.action == "drop"  # type: ignore[union-attr]
    assert received.data.dropped == dropped  # type: ignore[union-attr]
    assert not any(e.type == "wave_started" for e in events)  # a drop researches nothing
    assert_citations_hold(report, offline_web)


async def test_bad_answers_are_refused_and_the_run_keeps_waiting(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", review_findings=True)
    request = await run_research(hotpot_question, settings, run_id="findings-2")
    assert isinstance(request, InputRequest) and request.kind == "findings"
    every = [item.id for item in request.findings]
    for bad, reason in (
        ({"action": "drop", "drop": ["q9-nothing"]}, "no finding has the id 'q9-nothing'"),
        ({"action": "drop", "drop": [every[0], "made-up"]}, "'made-up'"),
        ({"action": "drop"}, "named none"),
        ({"action": "drop", "drop": every}, "dropping every finding"),
        ({"action": "gap"}, "gap says what is missing"),
        ({"action": "gap", "gap": " ab "}, "the gap is 2 characters"),
        ({"action": "gap", "gap": "x" * 301}, "the gap is 301 characters"),
        (
            {"action": "edit", "sub_questions": ["What?"]},
            "Input should be .approve., .drop. or .gap.",
        ),
        ({"action": "approve", "sub_questions": ["What?"]}, "sub_questions: Extra inputs"),
        ({"action": "rewrite"}, "action"),
        ("approve", "findings reply"),
    ):
        with pytest.raises(InvalidInput, match=reason):
            await run_research(None, settings, run_id="findings-2", resume=True, reply=bad)
    assert await pending_input(settings, "findings-2") == request
    # dropping every finding is fine when a gap is named: the gap's wave finds more
    report = await run_research(
        None,
        settings,
        run_id="findings-2",
        resume=True,
        reply={"action": "gap", "gap": GAP, "drop": every},
    )
    assert isinstance(report, Report) and report.kind == "extractive"
    assert not {item.id for item in report.evidence} & set(every)
    assert report.cited_evidence_ids()


async def test_a_gap_is_one_more_wave_from_its_own_words_then_the_report(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    """With a scripted model: the gap's wave searches the gap's queries only, its new
    evidence reaches the writer and is cited, and the review is not asked again."""
    model = ScriptedChatModel(research_script())
    models = dict.fromkeys(ROLES, model)
    settings = offline_settings(offline_web, tmp_path, review_findings=True)
    first: list[RunEvent] = []
    request = await run_research(
        hotpot_question, settings, run_id="findings-3", models=models, sinks=[first.append]
    )
    assert isinstance(request, InputRequest) and request.kind == "findings" and request.findings
    waves_before = max(
        int(e.data.wave)  # type: ignore[union-attr]
        for e in first
        if e.type == "wave_started"
    )
    events: list[RunEvent] = []
    report = await run_research(
        None,
        settings,
        run_id="findings-3",
        resume=True,
        reply={"action": "gap", "gap": GAP},
        models=models,
        sinks=[events.append],
    )
    assert isinstance(report, Report) and report.kind == "synthesized"
    waves = [e for e in events if e.type == "wave_started"]
    assert len(waves) == 1  # exactly one more wave
    assert waves[0].data.wave == waves_before + 1  # type: ignore[union-attr]
    received = next(e for e in events if e.type == "input_received")
    gap_unit = received.data.sub_questions[0]  # type: ignore[index,union-attr]
    assert [u.text for u in waves[0].data.units] == [GAP]  # type: ignore[union-attr]
    searched = [
        q
        for e in events
        if e.type == "search_completed"
        for q in e.data.queries  # type: ignore[union-attr]
    ]
    per_question = RunLimits.of(settings).queries_per_question
    assert set(searched) == set(fallback_queries(GAP, count=per_question, operators=True))
    assert set(searched) <= set(offline_web.search_queries())
    new = {item.id for item in report.evidence if item.sub_question_id == gap_unit.id}
    assert new, "the gap's wave found nothing"
    assert new & set(report.cited_evidence_ids()), "the gap's evidence is not cited"
    # every finding shown is in the report (a passage two units quoted is cited once, under
    # one of its ids: compared by source and quote)
    shown = {(item.source_url, item.quote) for item in request.findings}
    assert shown <= {(item.source_url, item.quote) for item in report.evidence}
    assert [e.type for e in events].count("input_requested") == 0  # not asked again
    assert_citations_hold(report, offline_web)
    # the claims are the whole run's: the claims call after the gap's wave reads the
    # findings from before the pause too, not only the wave's new ones
    claims_calls = [c for c in model.calls if str(c[0].content).startswith(CLAIMS_FIRST_LINE)]
    after_gap = str(claims_calls[-1][-1].content)
    kept = [item for item in request.findings if item.id in {e.id for e in report.evidence}]
    assert kept and all(item.quote[:60] in after_gap for item in kept)
