"""The event bus: stages emit RunEvents, front ends subscribe. A failing subscriber is
reported once and dropped; it never stops a run.

Some events announce a fact about one thing: a page was read, a unit of a wave found its
evidence. ``fact_key`` names that thing, and ``once_per_fact`` keeps a resumed run from
announcing again what an earlier attempt of it already announced (a run resumes at the
stage it was in, so that stage's work is done, and reported, again)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from pydantic import JsonValue

from deepresearch.models import EventType, RunEvent

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

    def emit(
        self, type: EventType, *, stage: str | None = None, message: str = "", **data: JsonValue
    ) -> RunEvent:
        self._seq += 1
        event = RunEvent(
            run_id=self.run_id,
            seq=self._seq,
            ts=datetime.now(UTC),
            type=type,
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


#: the data fields that name what each fact-announcing event is about
_FACTS: dict[str, tuple[str, ...]] = {
    "wave_started": ("wave",),
    "search_completed": ("sub_question", "wave"),
    "sources_ranked": ("sub_question", "wave"),
    "source_fetched": ("url",),
    "source_failed": ("url",),
    "source_summarized": ("url", "sub_question"),
    "evidence_added": ("sub_question", "wave"),
    "warning": ("code", "url"),  # a page's warning (injection, refused fetch)
}


def fact_key(event: RunEvent) -> tuple[str, ...] | None:
    """(type, what it is about...) for an event that announces a fact about one thing,
    None for the others (stages starting, model calls, the run's end...)."""
    fields = _FACTS.get(event.type)
    if fields is None:
        return None
    values = [event.data.get(name) for name in fields]
    if any(value is None or isinstance(value, (dict, list)) for value in values):
        return None
    return (event.type, *(str(value) for value in values))


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
