"""A research unit that runs past ``unit_timeout_s`` is cut and marked timed out (seed 004's
"research unit timed out"); the wave's other units and the run go on. Where a unit was cut
depends on the machine's speed, so the run's recording says so and its replay is refused
in one clear line instead of differing (outside tests/e2e: the suite's replay check would
replay it)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from deepresearch.compose.replay import replay_run
from deepresearch.core.units import TIMED_OUT
from deepresearch.errors import RunError
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import EvidenceAdded, PlanReady
from deepresearch.runner import run_research
from deepresearch.search.searxng import SearxngSearch
from deepresearch.settings import load_settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.faulty_search import FaultySearch
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..e2e.conftest import hotpot_question, offline_web, web_documents  # noqa: F401 (fixtures)
from ..e2e.helpers import offline_settings
from ..event_schema import assert_events_match_schema

#: long enough for an ordinary unit over the offline web on a busy machine
UNIT_TIMEOUT_S = 5.0


async def test_a_unit_past_its_time_limit_is_timed_out_and_the_run_goes_on(
    offline_web: OfflineWeb,  # noqa: F811
    hotpot_question: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    events: list[RunEvent] = []
    # no pre-search: the stalled first search must be a research unit's
    settings = offline_settings(
        offline_web, tmp_path, unit_timeout_s=UNIT_TIMEOUT_S, presearch=False
    )
    models = dict.fromkeys(ROLES, ScriptedChatModel(research_script()))
    async with httpx.AsyncClient() as client:
        # the first search never answers in time: its unit is cut
        search = FaultySearch(SearxngSearch(client, offline_web.base_url), stall_s=3600)
        report = await run_research(
            hotpot_question, settings, models=models, search=search, sinks=[events.append]
        )
    assert isinstance(report, Report) and report.kind == "synthesized"
    plan = next(e.data for e in events if isinstance(e.data, PlanReady))
    (stalled,) = [sq for sq in plan.sub_questions if search.broke[0] in sq.queries]
    units = [e.data for e in events if isinstance(e.data, EvidenceAdded)]
    cut = [u for u in units if u.sub_question == stalled.id]
    assert [(u.status, u.failure_reason, u.count) for u in cut] == [("timed_out", TIMED_OUT, 0)]
    assert cut[0].duration_s is not None and cut[0].duration_s >= UNIT_TIMEOUT_S
    # the others were not cut with it: they completed and their evidence is reported
    others = [u for u in units if u.sub_question != stalled.id]
    assert others and all(u.status == "completed" for u in others)
    assert report.evidence and all(e.sub_question_id != stalled.id for e in report.evidence)
    assert f"Research failed for: {stalled.text} ({TIMED_OUT})." in report.limitations
    assert events[-1].type == "run_completed"
    assert_events_match_schema(events)

    # the replay cannot be exact, and says so before doing any work
    with pytest.raises(RunError, match="cut at its time limit") as refused:
        await replay_run(load_settings(data_dir=tmp_path / "data"), report.run_id)
    assert f"research unit {stalled.id} of wave 1" in refused.value.message
