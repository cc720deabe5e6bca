"""Claims by the model (seed 003's claim extraction): one judge call per run reads the
verified evidence and names the claims it states, each with the evidence that supports it
and the evidence that contradicts it. The check stage asks it alongside the findings check
(``stages/check.py``), so it adds no step to the run's critical path; its calls are counted
in usage under their own stage, ``claims``.

The reply is checked by ``core.model_claims`` before anything uses it (unknown ids and
unsupported claims dropped, contradictions cross-checked by the deterministic detector).
Without a judge, or when the reply is unusable, the deterministic detector decides alone,
as it always has."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.assemble import best_evidence
from deepresearch.core.claims import detect_contradictions
from deepresearch.core.model_claims import (
    ProposedClaim,
    contradiction_basis,
    model_pairs,
    validate_claims,
)
from deepresearch.core.text import clip
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.models import Evidence
from deepresearch.models.claims import ExtractedClaims
from deepresearch.models.event_checks import ClaimsExtracted

STAGE = "claims"  # the usage stage of its call
MAX_RECORDS = 40  # the best-scored verified records the model reads (one call, bounded)
MAX_QUOTE_CHARS = 600

SYSTEM = f"""You extract the claims of a research run's verified evidence. {DATA_RULE}
Each note is a claim with the quote it rests on, copied word for word from a source. Group
the notes into atomic claims: for each claim, write it in one plain sentence that its
supporting quotes state (no fact they do not state), list the labels of the notes that
support it, and the labels of the notes from other sources that contradict it (a different
number, date or name for the same thing, or one says it is so and another that it is not).
Judge only by the quotes, not by what you know. Use only the labels given, e.g. "E3"."""


class ClaimReply(BaseModel):
    text: str
    supporting: list[str] = Field(default_factory=list)
    contradicting: list[str] = Field(default_factory=list)


class ClaimsReply(BaseModel):
    claims: list[ClaimReply] = Field(default_factory=list)


async def ask_claims(ctx: RunContext, evidence: Sequence[Evidence]) -> list[ProposedClaim] | None:
    """The judge's claims over the best of ``evidence`` (verified records only), with its
    labels mapped to evidence ids (a label it invented is kept as written, so validation
    drops and counts it); None without a judge, with nothing to read, or on a failed call."""
    records = best_evidence(evidence, MAX_RECORDS)
    if not records or not ctx.gateway.has_model("judge"):
        return None
    labels = {f"E{i}": item for i, item in enumerate(records, start=1)}
    blocks = "\n".join(
        data_block(
            "source",
            f"Claim: {clip(item.claim, 400)}\nQuote: {clip(item.quote, MAX_QUOTE_CHARS)}",
            label=key,
            url=item.source_url,
        )
        for key, item in labels.items()
    )
    reply = await ctx.gateway.structured(
        "judge", ClaimsReply, system=SYSTEM, user=f"Notes:\n{blocks}", stage=STAGE
    )
    if reply is None:
        return None

    def ids(cited: list[str]) -> list[str]:
        keys = [label.strip().strip("[]").upper() for label in cited]
        return [labels[key].id if key in labels else key for key in keys if key]

    return [
        ProposedClaim(claim.text, ids(claim.supporting), ids(claim.contradicting))
        for claim in reply.claims
    ]


async def settle_claims(
    ctx: RunContext, proposed: list[ProposedClaim] | None, evidence: Sequence[Evidence]
) -> tuple[ExtractedClaims | None, ClaimsExtracted]:
    """The model's claims checked against ``evidence`` (what the findings check kept), or
    None for the detector's fallback, and the event that says which and what was dropped."""
    verified = [item for item in evidence if item.verified]
    checked = None
    if proposed is not None:
        checked = await asyncio.to_thread(
            validate_claims, proposed, verified, embedder=ctx.embedder
        )
    extracted = checked if checked is not None and checked.claims else None
    detector = detect_contradictions(verified)
    basis = contradiction_basis(model_pairs(extracted) if extracted else [], detector)
    seen = list(basis.values())
    event = ClaimsExtracted(
        method="model" if extracted is not None else "detector",
        proposed=len(proposed) if proposed is not None else 0,
        claims=len(extracted.claims) if extracted is not None else 0,
        dropped_claims=checked.dropped_claims if checked is not None else 0,
        dropped_ids=checked.dropped_ids if checked is not None else 0,
        contradictions=len(basis),
        cross_checked=seen.count("both"),
        model_only=seen.count("model"),
        detector_only=seen.count("detector"),
    )
    return extracted, event
