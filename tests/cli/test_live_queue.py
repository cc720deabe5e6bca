"""The live view shows model calls waiting for a busy endpoint, from the events alone."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from rich.console import Console

from deepresearch.cli.live import Renderer, RunView
from deepresearch.compose.signals import emit_queue_event
from deepresearch.events import EventBus
from deepresearch.llm.gateway import QueueEvent
from deepresearch.models import RunEvent

SERVER = "127.0.0.1:8080"


def queue_events(*kinds_roles: tuple[str, str, int]) -> list[RunEvent]:
    """Events as the gateway's queue reports become them in a run."""
    bus = EventBus("run-1")
    for kind, role, waiting in kinds_roles:
        emit_queue_event(
            bus,
            QueueEvent(
                kind=kind,  # type: ignore[arg-type]
                role=role,  # type: ignore[arg-type]
                stage="research",
                endpoint=SERVER,
                waiting=waiting,
                in_flight=1,
                limit=1,
                waited_s=2.5 if kind != "waiting" else 0.0,
            ),
        )
    return bus.history


def shown(view: RunView) -> str:
    out = io.StringIO()
    Console(file=out, width=120).print(view.render())
    return out.getvalue()


def test_waiting_calls_are_counted_per_endpoint() -> None:
    view = RunView()
    events = queue_events(
        ("waiting", "summarizer", 1),
        ("waiting", "summarizer", 2),
        ("waiting", "judge", 3),
        ("started", "summarizer", 2),
    )
    for event in events:
        view.apply(event)
    assert view.waiting_lines() == [f"2 calls waiting for {SERVER} (judge, summarizer)"]
    assert f"2 calls waiting for {SERVER}" in shown(view)
    for event in queue_events(("started", "summarizer", 1), ("gave_up", "judge", 0)):
        view.apply(event)
    assert view.waiting_lines() == []
    assert "call waiting for" not in shown(view) and "calls waiting for" not in shown(view)


def test_one_waiting_call_reads_as_one() -> None:
    view = RunView()
    for event in queue_events(("waiting", "writer", 1)):
        view.apply(event)
    assert view.waiting_lines() == [f"1 call waiting for {SERVER} (writer)"]


def test_plain_output_names_waiting_calls_but_not_every_start() -> None:
    stream = io.StringIO()
    renderer = Renderer(json_events=False, stream=stream)
    for event in queue_events(("waiting", "judge", 1), ("started", "judge", 0)):
        renderer(event)
    lines = stream.getvalue().splitlines()
    assert lines == [f"[research] judge call waiting for {SERVER} (1 waiting, 1 of 1 in flight)"]


def test_other_events_leave_the_queue_alone() -> None:
    view = RunView()
    view.apply(
        RunEvent(
            run_id="r", ts=datetime.now(UTC), type="warning", data={"code": "injection", "url": "u"}
        )
    )
    assert view.waiting == {}
