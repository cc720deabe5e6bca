"""The event bus: stages emit RunEvents, front ends subscribe. A failing subscriber is
reported once and dropped; it never stops a run.

A stage emits a payload (``bus.emit(SourceFetched(url=..., ...), stage=..., message=...)``):
the event's type is the payload's, so an event cannot name one type and carry another's
fields (``models.events``).

Some events announce a fact about one thing: a page was read, a unit of a wave found its
evidence. ``fact_key`` names that thing, and ``once_per_fact`` keeps a resumed run from
announcing again what an earlier attempt of it already announced (a run resumes at the
stage it was in, so that stage's work is done, and reported, again)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from deepresearch.models import RunEvent
from deepresearch.models.events import Payload, StoredData, facts_of

Sink = Callable[[RunEvent], None]
log = logging.getLogger(__name__)


class EventBus:
    def __init__(self, run_id: str, sinks: tuple[Sink, ...] | list[Sink] = ()) -> None:
        self.run_id = run_id
        self._sinks: list[Sink] = list(sinks)
        self._seq = 0
        self.history: list[RunEvent] = []

    def subscribe(self, sink: Sink) -> None:
        self._sinks.append(sink)

    def emit(self, data: Payload, *, stage: str | None = None, message: str = "") -> RunEvent:
        if isinstance(data, StoredData):
            raise TypeError("StoredData is what was read back; emit a typed payload")
        self._seq += 1
        event = RunEvent(
            run_id=self.run_id,
            seq=self._seq,
            ts=datetime.now(UTC),
            type=data.event_type,
            stage=stage,
            message=message,
            data=data,
        )
        self.history.append(event)
        for sink in list(self._sinks):
            try:
                sink(event)
            except Exception:  # a broken front end must not break the run
                log.exception("event subscriber failed; it will get no more events")
                self._sinks.remove(sink)
        return event


def fact_key(event: RunEvent) -> tuple[str, ...] | None:
    """(type, what it is about...) for an event that announces a fact about one thing,
    None for the others (stages starting, model calls, the run's end...). The fields are
    the payload's ``fact``; an event read back as StoredData uses its type's."""
    data = event.data
    if isinstance(data, StoredData):
        found = [data.raw.get(name) for name in facts_of(event.type)]
    else:
        found = [getattr(data, name, None) for name in data.fact]
    if not found:
        return None
    if any(value is None or isinstance(value, (dict, list)) for value in found):
        return None
    return (event.type, *(str(value) for value in found))


def once_per_fact(sink: Sink, announced: Iterable[RunEvent]) -> Sink:
    """``sink`` without the events whose fact is among ``announced`` (what earlier attempts
    of the run reported). Within this attempt nothing is held back: a clean run's stream is
    what it always was, and a resumed run's adds up to the same counts."""
    seen = {key for event in announced if (key := fact_key(event)) is not None}
    if not seen:
        return sink

    def forward(event: RunEvent) -> None:
        key = fact_key(event)
        if key is None or key not in seen:
            sink(event)

    return forward
