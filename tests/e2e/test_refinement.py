"""A sub-question that finds nothing is retried with reformulated queries, and stopped
early (and said so) when its second iteration still finds nothing."""

from __future__ import annotations

from pathlib import Path

from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import SearchCompleted, UnitStoppedWarning
from deepresearch.runner import run_research
from deepresearch.testing.web import OfflineWeb

from .helpers import offline_settings


async def test_empty_sub_question_is_refined_then_stopped_early(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    # five waves allowed and the default gate: the early stop, not the cap, must end it
    settings = offline_settings(offline_web, tmp_path, model="none", depth="deep", min_domains=3)
    events: list[RunEvent] = []
    offline_web.reset_log()
    report = await run_research("zxqv wplmk qqqj vrrrt?", settings, sinks=[events.append])
    assert report is not None and report.kind == "abort"
    waves = [e for e in events if e.type == "wave_started"]
    assert len(waves) == 2  # the first search and one refinement, then the early stop
    stopped = [e.data for e in events if isinstance(e.data, UnitStoppedWarning)]
    assert stopped and stopped[0].sub_question == "q1"
    assert any("stopped early" in e.message for e in events if e.type == "warning")
    first, second = (e.data.queries for e in events if isinstance(e.data, SearchCompleted))
    assert first != second  # the retry used reformulated queries
