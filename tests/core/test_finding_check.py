"""The findings check's rules (``core.finding_check``)."""

from __future__ import annotations

from deepresearch.core.finding_check import check_counts, drop_unsupported, is_own_quote, to_check
from deepresearch.models import Evidence, FindingCheck, Verification


def _evidence(eid: str, claim: str, quote: str, *, verified: bool = True) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="q1",
        claim=claim,
        quote=quote,
        source_id="s1",
        source_url="https://example.org/a",
        start=0,
        end=len(quote),
        verification=Verification(status="PASS" if verified else "FAIL", method="exact", score=1.0),
    )


def _check(item: Evidence, verdict: str) -> FindingCheck:
    return FindingCheck(
        evidence_id=item.id,
        sub_question_id=item.sub_question_id,
        claim=item.claim,
        quote=item.quote,
        source_url=item.source_url,
        verdict=verdict,  # type: ignore[arg-type]
        method="judge",
    )


def test_a_claim_that_is_its_quote_needs_no_check() -> None:
    quote = "The bridge opened in 1932 — after six years’ work."
    assert is_own_quote(_evidence("e1", "The bridge opened in 1932 - after six years' work", quote))
    assert not is_own_quote(_evidence("e2", "The bridge opened in 1933.", quote))


def test_only_verified_findings_are_checked() -> None:
    items = [_evidence("e1", "a", "a"), _evidence("e2", "b", "b", verified=False)]
    assert [item.id for item in to_check(items)] == ["e1"]


def test_unsupported_findings_are_dropped_and_counted() -> None:
    items = [_evidence(f"e{i}", f"claim {i}", f"quote {i}") for i in range(4)]
    checks = [
        _check(items[0], "supported"),
        _check(items[1], "partial"),
        _check(items[2], "unsupported"),
    ]
    kept, dropped = drop_unsupported(items, checks)
    assert [item.id for item in kept] == ["e0", "e1", "e3"] and dropped == ["e2"]
    assert check_counts(checks) == {
        "findings_checked": 3,
        "findings_partial": 1,
        "findings_unsupported": 1,
    }
