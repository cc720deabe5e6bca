"""How sure the evidence is, in words a reader understands. Pure.

The claim ledger (``core.claims``) scores each claim (0..1) from the quality of the sources
behind it, how many agree and how many disagree; the job confidence scales the mean by how
many sources were used. A reader is better served by words than by a percentage alone,
and the writer needs the same words so the prose it writes says how sure each statement
is and where sources disagree.

Bands (the same for a claim and for the whole report):

- ``HIGH`` at 0.75 and above: "high";
- ``MODERATE`` at 0.45 and above: "moderate";
- else "low".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deepresearch.models.claims import Claim, ClaimLedger

HIGH = 0.75
MODERATE = 0.45
#: after the label of a disagreement only the model saw, in the writer's notes
MODEL_ONLY = " (seen by the model only; the rule-based check does not confirm it)"


def band(confidence: float) -> str:
    """``high``, ``moderate`` or ``low``."""
    if confidence >= HIGH:
        return "high"
    if confidence >= MODERATE:
        return "moderate"
    return "low"


def claim_words(claim: Claim) -> str:
    """How well one claim is supported, e.g. "high confidence: 3 independent sources agree"
    or "low confidence: one source says this, another disagrees"."""
    supporting = len(claim.source_ids)
    disagreeing = len(claim.contradicting)
    support = (
        "one source says this" if supporting <= 1 else f"{supporting} independent sources agree"
    )
    if disagreeing:
        support += ", " + ("another disagrees" if disagreeing == 1 else f"{disagreeing} disagree")
    return f"{band(claim.confidence)} confidence: {support}"


def evidence_notes(
    ledger: ClaimLedger, labels: Mapping[str, str]
) -> dict[str, tuple[str, Sequence[str]]]:
    """For each evidence id the writer sees: the words for its claim's support, and the
    writer's labels of the evidence that disagrees with it (``labels``: evidence id ->
    the writer's label, e.g. "E3"). A disagreement only the model saw (the deterministic
    detector does not confirm it) says so after its label. Evidence outside the ledger is
    left out."""
    out: dict[str, tuple[str, Sequence[str]]] = {}
    for claim in ledger.claims:
        words = claim_words(claim)
        against = [
            labels[eid] + (MODEL_ONLY if claim.contradiction_basis.get(eid) == "model" else "")
            for eid in claim.contradicting
            if eid in labels
        ]
        for eid in claim.supporting:
            if eid in labels:
                out[eid] = (words, against)
    return out
