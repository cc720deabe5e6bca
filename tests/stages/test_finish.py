"""The abort report: nothing is a finding, yet every source read or considered is listed
with its scores and the decision taken on it."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, cast

from deepresearch.events import EventBus
from deepresearch.export.report_render import to_markdown
from deepresearch.models.scores import SourceScores
from deepresearch.recipes.research.stages.finish import abort


def considered(url: str, final: float, decision: str, reason: str) -> SourceScores:
    return SourceScores(
        url=url,
        domain="local corpus",
        title=url.rsplit("/", 1)[-1],
        source_type="other",
        extractability=1.0,
        query_relevance=0.2,
        query_multiplier=0.5,
        domain_authority=60,
        recency=0.5,
        retrieval_relevance=0.4,
        tier="SECONDARY",
        credibility=0.7,
        signal_score=0.6,
        final=final,
        decision=decision,
        reason=reason,
    )


async def test_an_abort_lists_every_source_it_read_and_considered() -> None:
    candidates = {
        "file:///d/dropped.md": considered(
            "file:///d/dropped.md", 0.2, "dropped", "dropped: score 0.20 below threshold 0.45"
        ),
        "file:///d/read.md": considered(
            "file:///d/read.md", 0.4, "read", "read: best available, score 0.40 below 0.45"
        ),
    }
    state: dict[str, Any] = {
        "run_id": "run-1",
        "question": "Why did the zorblaxian fnordwick quintuple?",
        "considered": candidates,
        "sources": {},
        "sub_questions": [],
        "wave": 2,
    }
    runtime = SimpleNamespace(
        context=SimpleNamespace(bus=EventBus("run-1"), clock=lambda: datetime.now(UTC))
    )
    update = await abort(cast(Any, state), cast(Any, runtime))
    report = update["report"]
    assert report.kind == "abort" and report.evidence == []
    assert [s.url for s in report.considered] == ["file:///d/read.md", "file:///d/dropped.md"]
    markdown = to_markdown(report)
    assert "## Sources considered" in markdown
    assert "read: best available, score 0.40 below 0.45" in markdown
    assert "dropped: score 0.20 below threshold 0.45" in markdown
    assert "| read.md " in markdown or "[read.md]" in markdown or "read.md `" in markdown
    assert "listed under" in markdown
