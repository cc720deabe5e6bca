"""The findings review's pure rules (``core.findings_review``): a reply checked against
the ids shown, the dropped findings removed from evidence and checks, a gap's
sub-question, and the units of the gap's wave."""

from __future__ import annotations

import pytest

from deepresearch.core.findings_review import (
    check_findings_reply,
    gap_sub_question,
    wave_units,
    without_dropped,
)
from deepresearch.core.planning import fallback_queries
from deepresearch.errors import InvalidInput
from deepresearch.models import Evidence, FindingCheck, SubQuestion
from deepresearch.models.evidence import Verification

SHOWN = ["q1-a:p1", "q1-b:p2", "q2-c:p1"]


def test_a_drop_is_normalised_to_the_ids_shown_in_their_order() -> None:
    reply = check_findings_reply(
        {"action": "drop", "drop": [" q2-c:p1", "q1-a:p1", "q2-c:p1"]}, SHOWN
    )
    assert reply.drop == ["q1-a:p1", "q2-c:p1"] and reply.gap is None
    # the same decision however it was written: a repeated answer has one fingerprint
    again = check_findings_reply({"action": "drop", "drop": ["q1-a:p1", "q2-c:p1"]}, SHOWN)
    assert again == reply


def test_approve_ignores_the_rest_and_a_gap_is_cleaned() -> None:
    assert check_findings_reply({"action": "approve"}, SHOWN).model_dump() == {
        "action": "approve",
        "drop": None,
        "gap": None,
    }
    reply = check_findings_reply({"action": "gap", "gap": "  What   about\tEd Wood?\x00 "}, SHOWN)
    assert reply.gap == "What about Ed Wood?" and reply.drop is None


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ({"action": "drop", "drop": ["q1-a:p1", "nope"]}, "no finding has the id 'nope'"),
        ({"action": "drop", "drop": [f"x{i}" for i in range(8)]}, "and 3 more"),
        ({"action": "drop", "drop": []}, "named none"),
        ({"action": "drop", "drop": SHOWN}, "dropping every finding"),
        ({"action": "gap", "gap": "\n\n"}, "the gap is 0 characters"),
        ({"action": "gap", "gap": "y" * 301}, "the gap is 301 characters"),
        ({"action": "drop", "drop": [1]}, "drop.0"),
        ({"action": "approve", "brief": "x"}, "brief"),
        (["approve"], "findings reply"),
    ],
)
def test_bad_replies_say_what_is_wrong(reply: object, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        check_findings_reply(reply, SHOWN)


def test_dropping_every_finding_is_fine_with_a_gap() -> None:
    reply = check_findings_reply({"action": "gap", "gap": "What else?", "drop": SHOWN}, SHOWN)
    assert reply.drop == SHOWN and reply.gap == "What else?"


def _evidence(item_id: str, quote: str | None = None, source: str = "s") -> Evidence:
    return Evidence(
        id=item_id,
        sub_question_id=item_id.split("-")[0],
        claim="c",
        quote=quote or f"quote {item_id}",
        source_id=source,
        source_url="https://example.org/",
        start=0,
        end=1,
        verification=Verification(status="PASS", method="exact", score=1.0),
    )


def test_dropped_findings_leave_the_evidence_and_the_checks() -> None:
    evidence = [_evidence(item) for item in SHOWN]
    checks = [
        FindingCheck(
            evidence_id=item.id,
            sub_question_id=item.sub_question_id,
            claim="c",
            quote="q",
            source_url=item.source_url,
            verdict="supported",
            method="quote",
        )
        for item in evidence
    ]
    kept, kept_checks = without_dropped(evidence, checks, ["q1-b:p2"])
    assert [e.id for e in kept] == ["q1-a:p1", "q2-c:p1"]
    assert [c.evidence_id for c in kept_checks] == ["q1-a:p1", "q2-c:p1"]


def test_a_dropped_quote_goes_with_its_copies_under_other_ids() -> None:
    # two sub-questions quoted the same words of one source: the person dropped the words
    same = "Lilu is a masculine Akkadian word for a spirit."
    evidence = [
        _evidence("q1-s:p1", same),
        _evidence("q2-s:p1", same),
        _evidence("q2-t:p1", same, source="t"),  # the same words on another page stay
        _evidence("q1-s:p2"),
    ]
    kept, _ = without_dropped(evidence, [], ["q1-s:p1"])
    assert [e.id for e in kept] == ["q2-t:p1", "q1-s:p2"]


def test_a_gap_is_a_new_sub_question_with_queries_of_its_words() -> None:
    existing = [SubQuestion(id="q1", text="a"), SubQuestion(id="q7", text="b")]
    unit = gap_sub_question(
        "Where was Ed Wood born?", existing, wave=2, per_question=3, operators=True
    )
    assert unit.id == "q8" and unit.wave == 3 and unit.status == "pending"
    assert set(unit.queries) <= set(
        fallback_queries("Where was Ed Wood born?", count=3, operators=True)
    )
    assert unit.queries


def test_the_gaps_wave_researches_the_gap_alone_beyond_the_unit_cap() -> None:
    units = [
        SubQuestion(id="q1", text="a", status="covered"),
        SubQuestion(id="q2", text="b"),  # pending: left over when the cap was reached
        SubQuestion(id="q3", text="the gap"),
    ]
    assert [u.id for u in wave_units(units, room=0, gap_id="q3", spent=False)] == ["q3"]
    assert wave_units(units, room=5, gap_id="q3", spent=True) == []  # a budget is spent
    assert [u.id for u in wave_units(units, room=1, gap_id=None, spent=False)] == ["q2"]
    assert wave_units(units, room=-2, gap_id=None, spent=False) == []
