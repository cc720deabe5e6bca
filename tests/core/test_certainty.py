"""How sure the evidence is, in words: bands, a claim's support and disagreement, and the
notes the writer gets."""

from __future__ import annotations

import pytest

from deepresearch.core.certainty import band, claim_words, evidence_notes
from deepresearch.core.claims import build_ledger, detect_contradictions
from deepresearch.models import Evidence
from deepresearch.models.claims import Claim


def ev(eid: str, text: str, source: str) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="q1",
        claim=text,
        quote=text,
        source_id=source,
        source_url=f"https://{source}.example/page",
        start=0,
        end=len(text),
        score=0.5,
    )


@pytest.mark.parametrize(
    ("confidence", "words"),
    [(1.0, "high"), (0.75, "high"), (0.7499, "moderate"), (0.45, "moderate"), (0.1, "low")],
)
def test_bands(confidence: float, words: str) -> None:
    assert band(confidence) == words


def test_a_claim_says_how_many_agree_and_disagree() -> None:
    alone = Claim(
        id="c1",
        sub_question_id="q1",
        text="x",
        supporting=["e1"],
        source_ids=["s1"],
        confidence=0.5,
    )
    agreed = Claim(
        id="c2",
        sub_question_id="q1",
        text="x",
        supporting=["e1", "e2"],
        source_ids=["s1", "s2"],
        confidence=0.8,
    )
    disputed = Claim(
        id="c3",
        sub_question_id="q1",
        text="x",
        supporting=["e1"],
        source_ids=["s1"],
        contradicting=["e9"],
        contradiction=True,
        confidence=0.3,
    )
    assert claim_words(alone) == "moderate confidence: one source says this"
    assert claim_words(agreed) == "high confidence: 2 independent sources agree"
    assert claim_words(disputed) == "low confidence: one source says this, another disagrees"


def test_the_writer_learns_which_notes_disagree() -> None:
    evidence = [
        ev("e1", "The Eiffel Tower was completed in 1889 for the fair.", "a"),
        ev("e2", "The Eiffel Tower was completed in 1887 for the fair.", "b"),
        ev("e3", "Gustave Eiffel's company designed and built the tower.", "c"),
    ]
    pairs = detect_contradictions(evidence)
    assert pairs  # the detector sees the clash of years
    ledger = build_ledger(evidence, {}, contradictions=pairs)
    notes = evidence_notes(ledger, {"e1": "E1", "e2": "E2", "e3": "E3"})
    assert notes["e1"][1] == ["E2"] and notes["e2"][1] == ["E1"]
    assert "disagrees" in notes["e1"][0]
    assert list(notes["e3"][1]) == [] and notes["e3"][0].endswith("one source says this")
    assert ledger.certainty == band(ledger.job_confidence)
