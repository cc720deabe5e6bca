"""Reflect's queueing helpers: follow-ups (deduped, within the room left) and retries of
weak sub-questions (reformulated, within the attempts cap)."""

from __future__ import annotations

import pytest

from deepresearch.core.next_wave import retry_weak, stop_empty
from deepresearch.core.reformulate import reformulate
from deepresearch.models import SubQuestion
from deepresearch.recipes.research.stages.reflect import FollowUp, Reflection, _follow_ups


def existing() -> list[SubQuestion]:
    return [
        SubQuestion(id="q1", text="Who wrote Dune?", status="covered", wave=1),
        SubQuestion(id="q2", text="When was Dune published?", status="weak", wave=1),
    ]


def reflection(*items: FollowUp) -> Reflection:
    return Reflection(follow_ups=list(items))


def test_follow_ups_get_fresh_ids_the_next_wave_and_queries() -> None:
    out = _follow_ups(
        reflection(
            FollowUp(question="Where was Frank Herbert born?", queries=["Frank Herbert birthplace"])
        ),
        existing(),
        wave=1,
        room=5,
        per_question=3,
        operators=False,
    )
    assert len(out) == 1
    sq = out[0]
    assert (sq.id, sq.text, sq.wave, sq.status, sq.attempts) == (
        "q3",
        "Where was Frank Herbert born?",
        2,
        "pending",
        0,
    )
    assert sq.queries[0] == "Frank Herbert birthplace"
    assert len(sq.queries) == 3
    assert len({q.lower() for q in sq.queries}) == 3


def test_follow_ups_that_repeat_a_sub_question_are_dropped() -> None:
    out = _follow_ups(
        reflection(
            FollowUp(question="who wrote dune"),  # q1, other case, no question mark
            FollowUp(question="  When   was Dune published?  "),  # q2, other spacing
            FollowUp(question="What awards did Dune win?"),
            FollowUp(question="WHAT AWARDS DID DUNE WIN"),  # repeats the one before
            FollowUp(question="   "),
        ),
        existing(),
        wave=1,
        room=10,
        per_question=2,
        operators=True,
    )
    assert [sq.text for sq in out] == ["What awards did Dune win?"]
    assert out[0].id == "q3"


@pytest.mark.parametrize("room", [0, 1, 2])
def test_follow_ups_fit_in_the_room_left(room: int) -> None:
    items = [FollowUp(question=f"Distinct follow-up number {i}?") for i in range(5)]
    out = _follow_ups(
        reflection(*items), existing(), wave=2, room=room, per_question=2, operators=False
    )
    assert [sq.text for sq in out] == [item.question for item in items[:room]]
    assert [sq.id for sq in out] == [f"q{3 + i}" for i in range(room)]


def test_follow_up_queries_are_capped_and_deduped() -> None:
    out = _follow_ups(
        reflection(
            FollowUp(
                question="What is melange in Dune?",
                queries=["melange spice", "Melange  Spice", "arrakis spice", "spice economy"],
            )
        ),
        existing(),
        wave=1,
        room=3,
        per_question=2,
        operators=False,
    )
    assert out[0].queries == ["melange spice", "arrakis spice"]


def weak(
    sid: str, attempts: int, *, status: str = "weak", queries: list[str] | None = None
) -> SubQuestion:
    return SubQuestion(
        id=sid,
        text="How does intermittent fasting affect insulin sensitivity in adults?",
        status=status,
        attempts=attempts,
        queries=queries or [],
    )


def test_weak_sub_questions_are_retried_with_reformulated_queries() -> None:
    subs = [weak("q1", 1), weak("q2", 2), SubQuestion(id="q3", text="Covered?", status="covered")]
    out = retry_weak(subs, operators=True, count=3)
    assert [sq.id for sq in out] == ["q1", "q2"]
    assert all(sq.status == "pending" for sq in out)
    assert out[0].queries == reformulate(subs[0].text, attempt=1, operators=True, count=3)
    assert out[1].queries == reformulate(subs[1].text, attempt=2, operators=True, count=3)
    assert out[0].queries != out[1].queries  # broaden, then narrow
    # the state's own sub-questions are not changed in place
    assert subs[0].status == "weak" and subs[0].attempts == 1


def test_retries_stop_after_max_refinements() -> None:
    # the first search, then broaden, narrow and synonyms (seed 001): three refinements
    subs = [weak("q1", 2), weak("q2", 3), weak("q3", 4)]
    out = retry_weak(subs, operators=False, count=3)
    assert [sq.id for sq in out] == ["q1", "q2"]
    assert [sq.id for sq in retry_weak(subs, operators=False, count=3, max_refinements=4)] == [
        "q1",
        "q2",
        "q3",
    ]


def test_only_weak_sub_questions_are_retried() -> None:
    subs = [
        weak("q1", 1),
        weak("q2", 1),
        weak("q3", 1, status="pending"),
        weak("q4", 1, status="covered"),
    ]
    out = retry_weak(subs, operators=False, count=3)
    assert [sq.id for sq in out] == ["q1", "q2"]


def test_a_second_empty_iteration_stops_the_sub_question() -> None:
    from collections import Counter

    subs = [weak("q1", 1), weak("q2", 2), weak("q3", 2)]
    subs[2] = subs[2].model_copy(update={"passing": 1})
    out, stopped = stop_empty(subs, Counter({"q1": 0}))
    assert [sq.id for sq in stopped] == ["q2"]  # q1 gets its second try, q3 had sources
    assert [sq.status for sq in out] == ["weak", "failed", "weak"]


def test_retry_drops_queries_already_tried() -> None:
    text = weak("q1", 1).text
    tried = reformulate(text, attempt=1, operators=False, count=3)[:2]
    out = retry_weak([weak("q1", 1, queries=tried)], operators=False, count=3)
    assert out[0].queries == reformulate(text, attempt=1, operators=False, count=3)[2:]


def test_retry_keeps_all_queries_when_every_one_was_tried() -> None:
    text = weak("q1", 1).text
    tried = reformulate(text, attempt=1, operators=False, count=3)
    out = retry_weak([weak("q1", 1, queries=tried)], operators=False, count=3)
    assert out[0].queries == tried


def test_every_reformulation_strategy_is_reachable() -> None:
    """Attempts 1, 2 and 3 are retried, so broaden, narrow and synonyms all get used."""
    retried = [n for n in range(1, 6) if retry_weak([weak("q1", n)], operators=False, count=3)]
    assert retried == [1, 2, 3]


def test_a_lead_that_found_nothing_is_not_reformulated() -> None:
    lead = weak("q2", 1).model_copy(update={"lead": "The Glass Orchard"})
    assert [sq.id for sq in retry_weak([weak("q1", 1), lead], operators=False, count=3)] == ["q1"]
