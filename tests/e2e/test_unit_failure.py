"""Seed 004: one research unit's failure is its own. A unit whose search raises an
unexpected error (one outside deepresearch's error tree, as a bug in an adapter would) is
marked failed with its reason; the wave's other units and the run go on, and the gate,
the report's limitations and the unit's ``evidence_added`` summary say which unit failed
and why. The run is recorded, and the suite's replay check replays it byte for byte."""

from __future__ import annotations

from pathlib import Path

import httpx

from deepresearch.core.units import FAILED
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import EvidenceAdded, GateEvaluated, PlanReady
from deepresearch.runner import run_research
from deepresearch.search.searxng import SearxngSearch
from deepresearch.settings_values import ROLES
from deepresearch.testing.faulty_search import FaultySearch
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..event_schema import assert_events_match_schema
from .helpers import assert_citations_hold, offline_settings


async def test_a_unit_whose_search_raises_fails_alone_and_the_report_says_so(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    events: list[RunEvent] = []
    async with httpx.AsyncClient() as client:
        search = FaultySearch(SearxngSearch(client, offline_web.base_url))
        report = await run_research(
            hotpot_question,
            # no pre-search: the failing first search must be a research unit's
            offline_settings(offline_web, tmp_path, presearch=False),
            models=dict.fromkeys(ROLES, ScriptedChatModel(research_script())),
            search=search,
            sinks=[events.append],
        )
    assert len(search.broke) == 1  # one search raised, once
    assert isinstance(report, Report) and report.kind == "synthesized"
    assert_citations_hold(report, offline_web)

    plan = next(e.data for e in events if isinstance(e.data, PlanReady))
    (broken,) = [sq for sq in plan.sub_questions if search.broke[0] in sq.queries]
    units = [e.data for e in events if isinstance(e.data, EvidenceAdded)]
    failed = [u for u in units if u.status != "completed"]
    # the unit whose search raised failed, with seed 004's reason, and found nothing
    assert [(u.sub_question, u.status, u.failure_reason, u.count) for u in failed] == [
        (broken.id, "failed", FAILED, 0)
    ]
    assert failed[0].topic == broken.text
    # every unit reports its summary: the others completed and found the evidence
    for unit in units:
        assert unit.duration_s is not None and unit.duration_s >= 0
        assert unit.topic
    completed = [u for u in units if u.status == "completed"]
    assert completed and all(u.failure_reason is None for u in completed)
    assert {item.sub_question_id for item in report.evidence} - {broken.id}
    assert all(item.sub_question_id != broken.id for item in report.evidence)
    # the gate and the report's limitations name the unit and why it failed
    gates = [e.data for e in events if isinstance(e.data, GateEvaluated)]
    assert any(f"research failed for {broken.id} ({FAILED})" in r for g in gates for r in g.reasons)
    assert f"Research failed for: {broken.text} ({FAILED})." in report.limitations
    assert not any(
        line.startswith("No verified evidence") and broken.text in line
        for line in report.limitations
    )
    assert events[-1].type == "run_completed"
    assert_events_match_schema(events)
