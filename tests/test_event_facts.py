"""``events.once_per_fact``: what a resumed run reports again is held back when an earlier
attempt already announced it; nothing else is."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from deepresearch.events import EventBus, fact_key, once_per_fact
from deepresearch.models import RunEvent


def event(kind: Any, **data: Any) -> RunEvent:
    return RunEvent(run_id="run-1", ts=datetime.now(UTC), type=kind, stage="research", data=data)


def test_facts_are_named_by_what_they_are_about() -> None:
    assert fact_key(event("source_fetched", url="https://a/1", chars=10)) == (
        "source_fetched",
        "https://a/1",
    )
    assert fact_key(event("evidence_added", sub_question="q1", wave=2, count=3)) == (
        "evidence_added",
        "q1",
        "2",
    )
    assert fact_key(event("warning", message="search failed")) is None  # about nothing
    assert fact_key(event("stage_completed", wave=1)) is None
    assert fact_key(event("model_call", role="writer")) is None


def test_a_resumed_run_does_not_announce_again_what_was_announced() -> None:
    earlier = [
        event("wave_started", wave=1, units=[]),
        event("source_fetched", url="https://a/1"),
        event("evidence_added", sub_question="q1", wave=1, count=2),
    ]
    received: list[RunEvent] = []
    bus = EventBus("run-1", [once_per_fact(received.append, earlier)])
    bus.emit("run_resumed", message="Resuming at research")
    bus.emit("wave_started", stage="research", wave=1, units=[])  # the same wave again
    bus.emit("source_fetched", stage="research", url="https://a/1")  # read again
    bus.emit("source_fetched", stage="research", url="https://a/2")  # new
    bus.emit("evidence_added", stage="research", sub_question="q1", wave=1, count=2)
    bus.emit("evidence_added", stage="research", sub_question="q2", wave=1, count=1)
    bus.emit("evidence_added", stage="research", sub_question="q1", wave=2, count=1)  # retried
    bus.emit("stage_completed", stage="research", wave=1)
    assert [(e.type, e.data.get("url") or e.data.get("sub_question")) for e in received] == [
        ("run_resumed", None),
        ("source_fetched", "https://a/2"),
        ("evidence_added", "q2"),
        ("evidence_added", "q1"),
        ("stage_completed", None),
    ]


def test_within_one_attempt_nothing_is_held_back() -> None:
    received: list[RunEvent] = []
    sink = once_per_fact(received.append, [])
    for _ in range(2):
        sink(event("source_fetched", url="https://a/1"))
    assert len(received) == 2
