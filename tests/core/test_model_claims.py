"""The model's claims are checked before they are used (``core.model_claims``): ids must
name verified evidence, a claim must be stated by a quote it cites, and its contradictions
are cross-checked by the deterministic detector; without usable claims the ledger is the
detector's, exactly as before."""

from __future__ import annotations

from deepresearch.core.claims import build_ledger, detect_contradictions
from deepresearch.core.model_claims import (
    ProposedClaim,
    claim_ledger,
    contradiction_pairs,
    validate_claims,
)
from deepresearch.models import Evidence
from deepresearch.models.claims import ExtractedClaim, ExtractedClaims
from deepresearch.models.evidence import Verification

MILLAU_2004 = "The Millau Viaduct in southern France was opened to traffic in December 2004."
MILLAU_2005 = "Cars first crossed the Millau Viaduct over the Tarn valley in 2005."
EIFFEL_1889 = "The Eiffel Tower in Paris was completed in 1889 for the World's Fair."
EIFFEL_1887 = "The Eiffel Tower in Paris was completed in 1887 for the World's Fair."
SCORES = {"a": 0.8, "b": 0.6, "c": 0.5}


def ev(eid: str, text: str, source: str, *, verified: bool = True) -> Evidence:
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
        verification=Verification(
            status="PASS" if verified else "FAIL", method="exact" if verified else "none", score=1.0
        ),
    )


EVIDENCE = [
    ev("e1", MILLAU_2004, "a"),
    ev("e2", MILLAU_2005, "b"),
    ev("e3", EIFFEL_1889, "a"),
    ev("e4", EIFFEL_1887, "c"),
]


def test_invented_and_unverified_ids_are_dropped_and_counted() -> None:
    evidence = [*EVIDENCE, ev("e9", MILLAU_2005, "c", verified=False)]
    checked = validate_claims(
        [ProposedClaim(MILLAU_2004, ["e1", "e77"], ["e2", "e9", "e88"])], evidence
    )
    (claim,) = checked.claims
    assert claim.supporting == ["e1"] and claim.contradicting == ["e2"]
    assert checked.dropped_ids == 3  # e77 and e88 do not exist; e9 is not verified


def test_a_claim_no_cited_quote_states_is_dropped() -> None:
    checked = validate_claims(
        [
            # a figure and a name no quote states: the deterministic check says no
            ProposedClaim("The Millau Viaduct cost 400 million euros, said Norman Foster.", ["e1"]),
            # cited to a quote about something else
            ProposedClaim(MILLAU_2004, ["e3"]),
            ProposedClaim(EIFFEL_1889, ["e3", "e1"]),
            ProposedClaim("   ", ["e1"]),
        ],
        EVIDENCE,
    )
    assert [claim.text for claim in checked.claims] == [EIFFEL_1889]
    # a quote that does not support the claim is no support for it
    assert checked.claims[0].supporting == ["e3"]
    assert checked.dropped_claims == 3


def test_a_contradiction_only_the_model_sees_is_kept_and_labelled() -> None:
    assert detect_contradictions(EVIDENCE) == [("e3", "e4")]  # the detector misses Millau
    extracted = validate_claims(
        [ProposedClaim(MILLAU_2004, ["e1"], ["e2"]), ProposedClaim(EIFFEL_1889, ["e3"], ["e4"])],
        EVIDENCE,
    )
    ledger = claim_ledger(EVIDENCE, SCORES, extracted)
    assert ledger.extracted_by == "model"
    by_text = {claim.text: claim for claim in ledger.claims}
    millau = by_text[MILLAU_2004]
    assert millau.contradicting == ["e2"] and millau.contradiction_basis == {"e2": "model"}
    assert by_text[EIFFEL_1889].contradiction_basis == {"e4": "both"}  # cross-checked
    # the other side of each disagreement is flagged too
    other = ledger.claim_of("e2")
    assert other is not None and other.contradicting == ["e1"]
    assert contradiction_pairs(EVIDENCE, extracted) == [("e1", "e2"), ("e3", "e4")]


def test_the_detectors_contradictions_stand_when_the_model_misses_them() -> None:
    extracted = validate_claims([ProposedClaim(MILLAU_2004, ["e1"])], EVIDENCE)
    ledger = claim_ledger(EVIDENCE, SCORES, extracted)
    eiffel = ledger.claim_of("e3")
    assert eiffel is not None and eiffel.contradiction_basis == {"e4": "detector"}
    assert contradiction_pairs(EVIDENCE, extracted) == [("e3", "e4")]


def test_the_models_claims_group_the_evidence_it_cites() -> None:
    agree = ev("e5", "Traffic first used the Millau Viaduct in December 2004.", "c")
    evidence = [*EVIDENCE, agree]
    extracted = validate_claims([ProposedClaim(MILLAU_2004, ["e1", "e5"])], evidence)
    assert extracted.claims[0].supporting == ["e1", "e5"]
    ledger = claim_ledger(evidence, SCORES, extracted)
    claim = ledger.claim_of("e5")
    assert claim is not None and claim.text == MILLAU_2004
    assert claim.supporting == ["e1", "e5"] and claim.source_ids == ["a", "c"]
    # the detector alone keeps them apart (their wording differs too much)
    alone = build_ledger(evidence, SCORES, contradictions=detect_contradictions(evidence))
    assert alone.claim_of("e1") != alone.claim_of("e5")


def test_records_that_contradict_each_other_are_never_one_claim() -> None:
    extracted = ExtractedClaims(claims=[ExtractedClaim(text=EIFFEL_1889, supporting=["e3", "e4"])])
    ledger = claim_ledger(EVIDENCE, SCORES, extracted)
    first, second = ledger.claim_of("e3"), ledger.claim_of("e4")
    assert first is not None and second is not None and first.id != second.id
    assert first.contradicting == ["e4"] and second.contradicting == ["e3"]


def test_without_usable_claims_the_ledger_is_the_detectors() -> None:
    today = build_ledger(EVIDENCE, SCORES, contradictions=detect_contradictions(EVIDENCE))
    assert claim_ledger(EVIDENCE, SCORES, None) == today
    nothing_held = validate_claims([ProposedClaim(MILLAU_2004, ["e404"])], EVIDENCE)
    assert nothing_held.claims == [] and nothing_held.dropped_ids == 1
    assert claim_ledger(EVIDENCE, SCORES, nothing_held) == today
    assert today.extracted_by == "detector"
    assert contradiction_pairs(EVIDENCE, None) == detect_contradictions(EVIDENCE)
