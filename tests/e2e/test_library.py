"""The library front end: research_events yields the same events the CLI renders."""

from __future__ import annotations

from pathlib import Path

import deepresearch
from deepresearch.testing.web import OfflineWeb


async def test_research_events_yields_events_then_leaves_the_report(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    stream = deepresearch.research_events(
        hotpot_question,
        model="none",
        search="searxng",
        searxng_url=offline_web.base_url,
        allow_hosts=[offline_web.base_url.removeprefix("http://")],
        data_dir=tmp_path / "data",
        depth="quick",
        min_domains=1,
    )
    types = [event.type async for event in stream]
    assert types[0] == "run_started" and types[-1] == "run_completed"
    assert stream.report is not None and stream.report.kind == "extractive"
