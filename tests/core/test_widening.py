"""Reading widely (issue 17, part 6): how many leads a wave follows when the run has read
fewer sources than its depth's floor, and which covered sub-questions read further
results when the leads cannot make up the shortfall."""

from __future__ import annotations

import pytest

from deepresearch.core.leads import leads_wanted, to_widen
from deepresearch.core.reformulate import reformulate
from deepresearch.models import SubQuestion


@pytest.mark.parametrize(
    ("passed", "gaps", "shortfall", "wanted"),
    [
        (True, False, 0, 0),  # the gate passed and the floor is met: nothing to follow
        (True, False, -5, 0),
        (False, True, 0, 2),  # gaps in the answer: the best lead and one more
        (False, False, 0, 1),  # only the counts fall short: one lead widens the evidence
        (True, False, 7, 4),  # the gate passed, 7 sources missing, 2 a lead: 4 leads
        (False, True, 1, 2),  # the floor never lowers what the gate needs
    ],
)
def test_leads_wanted_covers_the_gate_and_the_floor(
    passed: bool, gaps: bool, shortfall: int, wanted: int
) -> None:
    assert leads_wanted(passed=passed, gaps=gaps, shortfall=shortfall, per_lead=2) == wanted


def sq(
    sid: str, status: str = "covered", *, lead: str | None = None, widened: int = 0
) -> SubQuestion:
    return SubQuestion(
        id=sid,
        text=f"What is the history of the Varmo lacquer trade ({sid})?",
        queries=[f"varmo lacquer {sid}"],
        status=status,  # type: ignore[arg-type]
        lead=lead,
        widened=widened,
    )


def widen(subs: list[SubQuestion], *, shortfall: int, room: int = 10) -> list[SubQuestion]:
    return to_widen(subs, shortfall=shortfall, per_unit=8, room=room, operators=False, count=3)


def test_only_covered_sub_questions_that_follow_no_lead_are_widened() -> None:
    subs = [sq("q1", "weak"), sq("q2", lead="Tessa Orlane"), sq("q3"), sq("q4", "failed")]
    assert [s.id for s in widen(subs, shortfall=20)] == ["q3"]


def test_as_many_as_read_the_shortfall_within_the_room() -> None:
    subs = [sq(f"q{i}") for i in range(1, 6)]
    assert [s.id for s in widen(subs, shortfall=9)] == ["q1", "q2"]  # 8 sources a unit
    assert [s.id for s in widen(subs, shortfall=40, room=3)] == ["q1", "q2", "q3"]
    assert widen(subs, shortfall=0) == []
    assert widen(subs, shortfall=9, room=0) == []


def test_the_first_widening_keeps_the_queries_then_they_are_reformulated() -> None:
    first = widen([sq("q1")], shortfall=5)[0]
    assert (first.status, first.widened, first.queries) == ("pending", 1, ["varmo lacquer q1"])
    second = widen([first.model_copy(update={"status": "covered"})], shortfall=5)[0]
    assert second.widened == 2
    assert second.queries == reformulate(first.text, attempt=1, operators=False, count=3)
    assert "varmo lacquer q1" not in second.queries


def test_the_least_widened_go_first() -> None:
    subs = [sq("q1", widened=2), sq("q2", widened=1), sq("q3")]
    assert [s.id for s in widen(subs, shortfall=16)] == ["q3", "q2"]
