"""The live view shows each research unit's summary (seed 004: status, duration, failure
reason) from its ``evidence_added`` event, and only from it: a message that merely says a
unit failed shows nothing (the seed's parity rule: nothing is read from message text)."""

from __future__ import annotations

import io

from rich.console import Console

from deepresearch.cli.live import RunView
from deepresearch.core.units import FAILED, TIMED_OUT
from deepresearch.models.event_payloads import EvidenceAdded, PlannedUnit, PlanReady

from .test_live_view import event


def shown(view: RunView) -> str:
    out = io.StringIO()
    Console(file=out, force_terminal=True, width=200, color_system=None).print(view.render())
    return out.getvalue()


def planned(view: RunView) -> None:
    units = [PlannedUnit(id=f"q{n}", text=f"Question {n}?", queries=[]) for n in (1, 2, 3)]
    view.apply(event(PlanReady(brief="", sub_questions=units, fallback=True)))


def added(sq: str, status: str, seconds: float, reason: str | None, count: int) -> EvidenceAdded:
    return EvidenceAdded.model_validate(
        {
            "sub_question": sq,
            "wave": 1,
            "count": count,
            "sources": count,
            "done": 1,
            "units": 3,
            "max_waves": 3,
            "status": status,
            "topic": f"Question {sq[1:]}?",
            "duration_s": seconds,
            "failure_reason": reason,
        }
    )


def test_each_unit_shows_how_it_ended_how_long_it_ran_and_why_it_failed() -> None:
    view = RunView()
    planned(view)
    view.apply(event(added("q1", "completed", 2.04, None, 3)))
    view.apply(event(added("q2", "timed_out", 30.0, TIMED_OUT, 0)))
    view.apply(event(added("q3", "failed", 0.31, FAILED, 0)))
    assert view.failure_lines() == [f"q2 {TIMED_OUT} (30.0 s)", f"q3 {FAILED} (0.3 s)"]
    text = shown(view)
    assert "done 2.0s" in text and "timed out 30.0s" in text and "failed 0.3s" in text
    assert f"q2 {TIMED_OUT} (30.0 s)" in text and f"q3 {FAILED} (0.3 s)" in text


def test_a_message_that_says_a_unit_failed_shows_no_failure() -> None:
    view = RunView()
    planned(view)
    view.apply(event(added("q1", "completed", 1.0, None, 2), f"q2: {TIMED_OUT}, q3: {FAILED}"))
    assert view.failure_lines() == []
    assert view.units.keys() == {"q1"}
    text = shown(view)
    # the message is printed as it is, once; no unit's row or failure line says it
    assert text.count(TIMED_OUT) == 1 and text.count(FAILED) == 1
    assert "timed out 1" not in text and "failed 1" not in text


def test_an_event_stored_before_the_summary_existed_reads_as_completed() -> None:
    """Events of older runs have no status: the unit completed, its duration unknown."""
    old = EvidenceAdded.model_validate(
        {
            "sub_question": "q1",
            "wave": 1,
            "count": 2,
            "sources": 1,
            "done": 1,
            "units": 1,
            "max_waves": 3,
        }
    )
    view = RunView()
    planned(view)
    view.apply(event(old))
    assert view.failure_lines() == []
    assert "done" in shown(view)
