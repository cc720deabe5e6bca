"""The event bus: stages emit RunEvents, front ends subscribe. A failing subscriber is
reported once and dropped; it never stops a run."""

from __future__ import annotations

import logging
from collections.abc import Callable
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
