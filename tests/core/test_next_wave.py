"""Reflect's policy after a wave (``core.next_wave``), decided on hand-made inputs: the room
left, weak sub-questions stopped or retried, when the model is asked, leads and follow-ups
merged within the room, widening toward the depth's floor, and the route."""

from __future__ import annotations

from dataclasses import replace

import pytest

from deepresearch.core.gate import GateResult
from deepresearch.core.leads import Lead
from deepresearch.core.next_wave import (
    Retries,
    WaveFacts,
    decide_next_wave,
    follow_up_units,
    lead_note,
    retry_wave,
    wave_room,
)
from deepresearch.models import SubQuestion

PASSED = GateResult(status="pass", evidence=6)
RETRY = GateResult(status="retry", evidence=2, reasons=["2 verified evidence records, need 5"])
GAPS = GateResult(status="retry", evidence=2, gaps=["no value of the asked kind"])


def facts(gate: GateResult = RETRY, **changes: object) -> WaveFacts:
    base = WaveFacts(
        gate=gate,
        wave=1,
        max_waves=3,
        units_used=2,
        max_units=10,
        room=4,
        read=6,
        floor=6,
        per_question=2,
        per_unit=3,
        lead_sources=2,
        max_refinements=3,
        operators=False,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def sq(sid: str, status: str = "covered", **changes: object) -> SubQuestion:
    return SubQuestion.model_validate(
        {
            "id": sid,
            "text": f"What does {sid} ask about intermittent fasting?",
            "queries": [f"{sid} fasting"],
            "wave": 1,
            "attempts": 1,
            "status": status,
            **changes,
        }
    )


def lead(text: str, key: str | None = None) -> Lead:
    return Lead(text=text, key=key or text.lower(), kind="entity", score=1.0, evidence_ids=("e1",))


# -- the room -------------------------------------------------------------------------------


def test_room_is_what_the_cap_leaves_at_most_two_waves_of_concurrent_units() -> None:
    assert wave_room(max_units=10, units_used=2, max_concurrent=3, stopped=False) == 6
    assert wave_room(max_units=10, units_used=8, max_concurrent=3, stopped=False) == 2


def test_no_room_when_the_run_must_stop() -> None:
    assert wave_room(max_units=10, units_used=0, max_concurrent=3, stopped=True) == 0


# -- step one: retries ----------------------------------------------------------------------


def test_a_weak_sub_question_is_retried_and_takes_room() -> None:
    retries = retry_wave(facts(), [sq("q1"), sq("q2", "weak")], {"q1": 3})
    assert [q.id for q in retries.queued] == ["q2"]
    assert retries.queued[0].status == "pending"
    assert [q.status for q in retries.sub_questions] == ["covered", "pending"]
    assert retries.room == 3
    assert retries.stopped == []
    assert retries.ask  # the gate did not pass


def test_a_weak_sub_question_that_found_nothing_twice_stops() -> None:
    weak = sq("q2", "weak", attempts=2)
    retries = retry_wave(facts(), [sq("q1"), weak], {"q1": 3})
    assert [q.id for q in retries.stopped] == ["q2"]
    assert retries.sub_questions[1].status == "failed"
    assert retries.queued == []


def test_the_model_is_not_asked_when_the_gate_passed_and_nothing_else_queues() -> None:
    retries = retry_wave(facts(PASSED), [sq("q1"), sq("q2")], {"q1": 3, "q2": 3})
    assert (retries.ask, retries.wanted, retries.queued) == (False, 0, [])


def test_leads_wanted_follow_the_gate_and_the_shortfall() -> None:
    assert retry_wave(facts(GAPS), [sq("q1")], {}).wanted == 2
    assert retry_wave(facts(RETRY), [sq("q1")], {}).wanted == 1
    # passed, but 4 sources short of the floor: two leads of two sources each
    assert retry_wave(facts(PASSED, read=2), [sq("q1")], {}).wanted == 2


@pytest.mark.parametrize("changes", [{"wave": 3}, {"room": 0}])
def test_nothing_is_stopped_or_retried_without_a_wave_or_room_left(
    changes: dict[str, int],
) -> None:
    subs = [sq("q1", "weak", attempts=2), sq("q2", "weak")]
    retries = retry_wave(facts(**changes), subs, {})
    assert retries.sub_questions == subs
    assert (retries.stopped, retries.queued, retries.ask) == ([], [], False)


# -- step two: the next wave ----------------------------------------------------------------


def retries_of(subs: list[SubQuestion], *, room: int = 4, wanted: int = 1) -> Retries:
    return Retries(subs, [], [], room, wanted, ask=True)


def test_nothing_queued_and_the_gate_passed_writes() -> None:
    decision = decide_next_wave(facts(PASSED), retries_of([sq("q1")], wanted=0), [], [], [])
    assert decision.route == "write"
    assert (decision.queued, decision.notes, decision.open_leads) == ([], [], [])


def test_a_lead_is_followed_and_noted() -> None:
    found = [lead("Ancel Keys"), lead("Minnesota study")]
    decision = decide_next_wave(facts(), retries_of([sq("q1")]), [], found, ["earlier"])
    assert decision.route == "research"
    assert [q.lead for q in decision.queued] == ["Ancel Keys"]
    assert decision.queued[0].id == "q2"
    assert decision.taken == {"Ancel Keys"}
    assert decision.followed == ["earlier", "ancel keys"]
    assert decision.notes == [lead_note(found[0])]
    # open leads are shown only when the run writes next
    assert decision.open_leads == []


def test_open_leads_are_kept_when_the_run_writes() -> None:
    found = [lead("Ancel Keys")]
    decision = decide_next_wave(facts(wave=3), retries_of([sq("q1")]), [], found, [])
    assert decision.route == "write"
    assert decision.queued == []
    assert decision.open_leads == ["Ancel Keys"]


def test_follow_ups_and_leads_share_the_room() -> None:
    follow_ups = follow_up_units(
        [("Where did the Minnesota study run?", []), ("Who funded it?", [])],
        [sq("q1")],
        wave=1,
        room=4,
        per_question=2,
        operators=False,
    )
    decision = decide_next_wave(
        facts(), retries_of([sq("q1")], room=2, wanted=2), follow_ups, [lead("Ancel Keys")], []
    )
    assert len(decision.queued) == 2
    assert [q.id for q in decision.sub_questions] == ["q1", "q2", "q3"]
    assert {q.lead for q in decision.queued} == {None, "Ancel Keys"}


def test_a_run_short_of_its_floor_widens_a_covered_sub_question() -> None:
    decision = decide_next_wave(facts(PASSED, read=3), retries_of([sq("q1")], wanted=0), [], [], [])
    assert [(q.id, q.widened, q.status) for q in decision.queued] == [("q1", 1, "pending")]
    assert decision.sub_questions[0].widened == 1
    assert decision.notes == ["q1: reading its next-best results (3 of 6 sources read)"]
    assert decision.route == "research"


def test_the_last_wave_widens_nothing() -> None:
    decision = decide_next_wave(
        facts(PASSED, read=3, wave=3), retries_of([sq("q1")], wanted=0), [], [], []
    )
    assert (decision.queued, decision.route) == ([], "write")


def test_a_gate_that_aborts_after_the_second_wave_aborts() -> None:
    aborted = GateResult(status="abort")
    decision = decide_next_wave(facts(aborted, wave=2), retries_of([sq("q1")]), [], [], [])
    assert decision.route == "abort"
