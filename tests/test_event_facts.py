"""``events.once_per_fact``: what a resumed run reports again is held back when an earlier
attempt already announced it; nothing else is."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from deepresearch.events import EventBus, fact_key, once_per_fact
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import (
    EvidenceAdded,
    FetchRefusedWarning,
    ModelCalled,
    RunResumed,
    SearchFailedWarning,
    SourceFetched,
    StageCompleted,
    WaveStarted,
)
from deepresearch.models.events import Payload


def event(data: Payload) -> RunEvent:
    return RunEvent(
        run_id="run-1", ts=datetime.now(UTC), type=data.event_type, stage="research", data=data
    )


def stored(kind: Any, **data: Any) -> RunEvent:
    """An event as read back from the store: ``data`` is JSON."""
    return RunEvent.model_validate(
        {"run_id": "run-1", "ts": datetime.now(UTC), "type": kind, "data": data}
    )


def fetched(url: str) -> SourceFetched:
    return SourceFetched(url=url, title="", domain="a", kind="html", chars=10, from_provider=False)


def added(sub_question: str, wave: int, count: int) -> EvidenceAdded:
    return EvidenceAdded(
        sub_question=sub_question, wave=wave, count=count, sources=1, done=1, units=2, max_waves=3
    )


def test_facts_are_named_by_what_they_are_about() -> None:
    assert fact_key(event(fetched("https://a/1"))) == ("source_fetched", "https://a/1")
    assert fact_key(event(added("q1", 2, 3))) == ("evidence_added", "q1", "2")
    refused = FetchRefusedWarning(code="fetch_refused", url="https://a/2")
    assert fact_key(event(refused)) == ("warning", "fetch_refused", "https://a/2")
    search = SearchFailedWarning(code="search_failed", query="x")
    assert fact_key(event(search)) is None  # about nothing
    assert fact_key(event(StageCompleted(wave=1))) is None
    call = ModelCalled(
        role="writer",
        model="m",
        input_tokens=1,
        output_tokens=1,
        latency_s=0.1,
        ok=True,
        attempts=1,
        usage_source="reported",
    )
    assert fact_key(event(call)) is None


def test_a_stored_event_of_another_version_keeps_its_fact() -> None:
    # stored by a version whose source_fetched had other fields: kept as StoredData,
    # and still named by its url
    old = stored("source_fetched", url="https://a/1", bytes=10)
    assert fact_key(old) == ("source_fetched", "https://a/1")
    assert fact_key(stored("warning", message="search failed")) is None


def test_a_resumed_run_does_not_announce_again_what_was_announced() -> None:
    earlier = [
        event(WaveStarted(wave=1, max_waves=3, units=[])),
        event(fetched("https://a/1")),
        stored("evidence_added", sub_question="q1", wave=1, count=2),  # read back from JSON
    ]
    received: list[RunEvent] = []
    bus = EventBus("run-1", [once_per_fact(received.append, earlier)])
    bus.emit(RunResumed(question="?", next=["research"]), message="Resuming at research")
    bus.emit(WaveStarted(wave=1, max_waves=3, units=[]), stage="research")  # the same wave
    bus.emit(fetched("https://a/1"), stage="research")  # read again
    bus.emit(fetched("https://a/2"), stage="research")  # new
    bus.emit(added("q1", 1, 2), stage="research")
    bus.emit(added("q2", 1, 1), stage="research")
    bus.emit(added("q1", 2, 1), stage="research")  # retried
    bus.emit(StageCompleted(wave=1), stage="research")
    assert [
        (e.type, getattr(e.data, "url", getattr(e.data, "sub_question", None))) for e in received
    ] == [
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
        sink(event(fetched("https://a/1")))
    assert len(received) == 2
