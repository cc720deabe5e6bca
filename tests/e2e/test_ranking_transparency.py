"""Every candidate source keeps its scores and the reason it was read or dropped, in the
JSON report, the HTML sources table and the event stream."""

from __future__ import annotations

import json
from pathlib import Path

from deepresearch.export.report_render import to_html, to_json, to_markdown
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import SourcesRanked
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import offline_settings


async def test_scores_and_reasons_reach_every_output(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    events: list[RunEvent] = []
    model = ScriptedChatModel(research_script())
    settings = offline_settings(offline_web, tmp_path)
    report = await run_research(
        hotpot_question, settings, models=dict.fromkeys(ROLES, model), sinks=[events.append]
    )
    assert report is not None and report.considered
    read = [s for s in report.considered if s.decision == "read"]
    dropped = [s for s in report.considered if s.decision == "dropped"]
    assert read and dropped
    for scores in report.considered:
        assert scores.reason and scores.threshold is not None
        assert 0 <= scores.final <= 1 and scores.tier == "SECONDARY"  # an allowed host
    # the judge model rated the best candidates (seed 001), the rest kept the signal score
    assert any(s.model_status == "scored" and s.model_score is not None for s in report.considered)
    cited = {ref.url for ref in report.sources}
    assert cited <= {s.url for s in read}
    payload = json.loads(to_json(report))
    assert {"relevance", "quality", "usefulness", "signal_score", "final", "reason"} <= set(
        payload["considered"][0]
    )
    assert "## Sources considered" in to_markdown(report)
    page = to_html(report)
    assert "Sources considered" in page and dropped[0].reason.split(":")[0] in page
    ranked = [e.data for e in events if isinstance(e.data, SourcesRanked)]
    assert ranked and all(data.candidates for data in ranked)
