"""Claims by the model (seed 003's claim extraction), checked before anything uses them. Pure.

With a model, the judge reads the verified evidence once and names the claims it states,
each with the evidence that supports it and the evidence that contradicts it
(``stages/claims.py``). A model can invent an id, cite a quote that says something else,
or word a claim beyond its quotes, so :func:`validate_claims` keeps only what can be
checked:

- an evidence id must name verified evidence; any other is dropped (and counted);
- each supporting quote is read against the claim's wording by the deterministic support
  check (``core.support.check_support``): a quote it finds "unsupported" is no support and
  is dropped, and a claim that no cited quote fully supports ("supported") is dropped;
- a record cannot both support and contradict one claim (it stays a support).

:func:`claim_ledger` builds the report's claim ledger from what survives: the model's
claims group the evidence they cite (the rest is grouped by ``core.claims`` as without a
model), and the contradictions are the model's and the deterministic detector's together.
Each is labelled by who saw it: "both" (the detector cross-checks the model), "model"
(kept, but the detector does not confirm it) or "detector" (the model missed it; the
detector is built for precision, so its finding stands). With no model, or when no claim
survives, the ledger is the detector's alone, exactly as without this step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from deepresearch.core.claims import build_ledger, detect_contradictions
from deepresearch.core.support import Embedder, check_support
from deepresearch.models import Evidence
from deepresearch.models.claims import (
    Claim,
    ClaimLedger,
    ContradictionBasis,
    ExtractedClaim,
    ExtractedClaims,
)


@dataclass(frozen=True)
class ProposedClaim:
    """A claim as the model stated it: its wording and the evidence ids it cites."""

    text: str
    supporting: Sequence[str]
    contradicting: Sequence[str] = ()


def validate_claims(
    proposed: Sequence[ProposedClaim],
    evidence: Sequence[Evidence],
    *,
    embedder: Embedder | None = None,
) -> ExtractedClaims:
    """The model's claims that hold against ``evidence`` (the rules in the module's
    docstring), and how many claims and ids were dropped. When none holds, the ledger
    falls back to the detector (``claim_ledger``)."""
    verified = {item.id: item for item in evidence if item.verified}
    kept: list[ExtractedClaim] = []
    dropped_claims = dropped_ids = 0
    for claim in proposed:
        text = " ".join(claim.text.split())
        supporting = _known(claim.supporting, verified)
        contradicting = [
            eid for eid in _known(claim.contradicting, verified) if eid not in supporting
        ]
        dropped_ids += _unknown(claim.supporting, verified) + _unknown(
            claim.contradicting, verified
        )
        verdicts = {
            eid: check_support(text, [verified[eid].quote], embedder=embedder).verdict
            for eid in supporting
        }
        if not text or "supported" not in verdicts.values():
            dropped_claims += 1
            continue
        kept.append(
            ExtractedClaim(
                text=text,
                supporting=[eid for eid in supporting if verdicts[eid] != "unsupported"],
                contradicting=contradicting,
            )
        )
    return ExtractedClaims(claims=kept, dropped_claims=dropped_claims, dropped_ids=dropped_ids)


def _known(ids: Sequence[str], verified: Mapping[str, Evidence]) -> list[str]:
    return list(dict.fromkeys(eid.strip() for eid in ids if eid.strip() in verified))


def _unknown(ids: Sequence[str], verified: Mapping[str, Evidence]) -> int:
    return len({eid.strip() for eid in ids} - set(verified))


def model_pairs(extracted: ExtractedClaims) -> list[tuple[str, str]]:
    """The contradictions the model names, as (supporting id, contradicting id) pairs."""
    return [
        (support, against)
        for claim in extracted.claims
        for support in claim.supporting
        for against in claim.contradicting
    ]


def contradiction_basis(
    model: Sequence[tuple[str, str]], detector: Sequence[tuple[str, str]]
) -> dict[frozenset[str], ContradictionBasis]:
    """Each contradicting pair (unordered) and who saw it."""
    seen_by_model = {frozenset(pair) for pair in model if pair[0] != pair[1]}
    seen_by_detector = {frozenset(pair) for pair in detector if pair[0] != pair[1]}
    basis: dict[frozenset[str], ContradictionBasis] = {}
    for pair in seen_by_model | seen_by_detector:
        if pair in seen_by_model and pair in seen_by_detector:
            basis[pair] = "both"
        else:
            basis[pair] = "model" if pair in seen_by_model else "detector"
    return basis


def contradiction_pairs(
    evidence: Sequence[Evidence], extracted: ExtractedClaims | None
) -> list[tuple[str, str]]:
    """The contradictions among ``evidence``: the detector's, with the model's when some
    of its claims held; each pair (earlier id, later id) in input order, once."""
    detector = detect_contradictions(evidence)
    if extracted is None or not extracted.claims:
        return detector
    order = {item.id: index for index, item in enumerate(evidence)}
    pairs = {
        pair
        for pair in contradiction_basis(model_pairs(extracted), detector)
        if pair <= order.keys()
    }
    ordered = []
    for pair in pairs:
        first, second = sorted(pair, key=order.__getitem__)
        ordered.append((first, second))
    return sorted(ordered, key=lambda p: (order[p[0]], order[p[1]]))


def claim_ledger(
    evidence: Sequence[Evidence],
    source_scores: Mapping[str, float],
    extracted: ExtractedClaims | None,
    *,
    max_sources: int | None = None,
) -> ClaimLedger:
    """The claim ledger of ``evidence``: the detector's alone when ``extracted`` is None
    or holds no claim;
    else grouped by the model's claims, with every contradiction labelled by who saw it.
    ``max_sources``: the sources one claim keeps at most (``build_ledger``)."""
    detector = detect_contradictions(evidence)
    if extracted is None or not extracted.claims:
        return build_ledger(
            evidence, source_scores, contradictions=detector, max_sources=max_sources
        )
    basis = contradiction_basis(model_pairs(extracted), detector)
    ledger = build_ledger(
        evidence,
        source_scores,
        contradictions=contradiction_pairs(evidence, extracted),
        groups=[(claim.text, claim.supporting) for claim in extracted.claims],
        max_sources=max_sources,
    )
    claims = [
        claim.model_copy(update={"contradiction_basis": _labelled(claim, basis)})
        for claim in ledger.claims
    ]
    return ledger.model_copy(update={"claims": claims, "extracted_by": "model"})


def _labelled(
    claim: Claim, basis: Mapping[frozenset[str], ContradictionBasis]
) -> dict[str, ContradictionBasis]:
    """Who saw each contradiction of ``claim``: cross-checked ("both") when the model and
    the detector saw it for any of its records."""
    out: dict[str, ContradictionBasis] = {}
    for against in claim.contradicting:
        seen = {basis.get(frozenset((own, against))) for own in claim.supporting}
        if "both" in seen or {"model", "detector"} <= seen:
            out[against] = "both"
        else:
            out[against] = "model" if "model" in seen else "detector"
    return out
