"""Progress notifications folded from run events: values that only grow (the protocol
requires it), from 0 to 100, and messages that say where the run is and what it found."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from deepresearch.mcp.progress import ProgressTracker
from deepresearch.models import RunEvent


def event(event_type: str, stage: str | None = None, message: str = "", /, **data: Any) -> RunEvent:
    """An event as a run emits it: ``data`` validated into the type's payload model."""
    return RunEvent.model_validate(
        {
            "run_id": "run-1",
            "ts": datetime(2025, 1, 1, tzinfo=UTC),
            "type": event_type,
            "stage": stage,
            "message": message,
            "data": data,
        }
    )


PAGE = {"url": "https://a.example/", "title": "A", "domain": "a.example", "kind": "html"}
PAGE_FIELDS = {**PAGE, "chars": 100, "from_provider": False}
MODEL = {"role": "summarizer", "model": "m", "input_tokens": 1, "output_tokens": 1}
MODEL_FIELDS = {**MODEL, "latency_s": 0.1, "ok": True, "attempts": 1, "usage_source": "estimated"}


def test_progress_grows_with_every_notice_and_counts_what_was_found() -> None:
    tracker = ProgressTracker()
    units = [{"id": "q1", "text": "one"}, {"id": "q2", "text": "two"}]
    stream = [
        event("run_started", None, "Research started", question="q", model="none", search="x"),
        event("stage_started", "plan", "Planning"),
        event("wave_started", "research", "Wave 1", wave=1, max_waves=2, units=units),
        event("source_fetched", "research", "Read  a\\npage", **PAGE_FIELDS),
        event("model_call", "research", "summarizer", **MODEL_FIELDS),
        event("source_fetched", "research", "Read another", **PAGE_FIELDS),
        event(
            "evidence_added",
            "research",
            "q1",
            sub_question="q1",
            wave=1,
            count=3,
            sources=2,
            done=1,
            units=2,
            max_waves=2,
        ),
        event("stage_started", "write", "Writing"),
        event(
            "run_completed",
            None,
            "Research finished",
            kind="extractive",
            sources=2,
            evidence=3,
            fetches=2,
            input_tokens=0,
            output_tokens=0,
        ),
    ]
    assert all(type(item.data).__name__ != "StoredData" for item in stream)  # all typed
    notices = [tracker.update(item) for item in stream]
    assert notices[4] is None  # a model call is not worth a notification
    sent = [notice for notice in notices if notice is not None]
    values = [notice.progress for notice in sent]
    assert values == sorted(set(values)) and values[0] == 0 and values[-1] == 100
    assert all(notice.total == 100 for notice in sent)
    assert (
        sent[3].message
        == "[research, wave 1] Read a\\npage (1 sources read, 0 verified quotes; run run-1)"
    )
    assert "(2 sources read, 3 verified quotes; run run-1)" in sent[-1].message
    assert sent[-1].message.startswith("[done] Research finished")


def test_a_long_stage_still_gives_growing_values_below_100() -> None:
    tracker = ProgressTracker()
    values = [
        notice.progress
        for i in range(500)
        if (
            notice := tracker.update(
                event("source_fetched", "research", f"page {i}", **PAGE_FIELDS)
            )
        )
    ]
    assert values == sorted(set(values)) and values[-1] < 100
