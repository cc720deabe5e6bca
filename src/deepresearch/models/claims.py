"""Claims: atomic statements with the evidence for and against them (seed 003's claim
scoring, seed 004's evidence ledger). Built by ``core.claims``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

#: who saw a contradiction: the model and the deterministic detector ("both": cross-checked),
#: the model alone, or the detector alone
ContradictionBasis = Literal["both", "model", "detector"]


class Claim(BaseModel):
    """An atomic claim, the evidence for and against it, and its seed 003 scores.

    ``supporting[0]`` is the highest-scored record; ``text`` and ``sub_question_id`` are
    its. ``source_ids`` are the distinct supporting sources; the contradiction count is
    the number of distinct sources behind ``contradicting``."""

    id: str
    text: str
    sub_question_id: str
    sub_question_ids: list[str] = Field(default_factory=list)
    supporting: list[str] = Field(default_factory=list, description="evidence ids")
    contradicting: list[str] = Field(default_factory=list, description="evidence ids")
    contradicting_claims: list[str] = Field(default_factory=list, description="claim ids")
    source_ids: list[str] = Field(default_factory=list)
    source_urls: list[str] = Field(default_factory=list)
    support_strength: float = Field(default=0.0, ge=0.0, le=1.0)
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    contradiction: bool = False
    uncertainty: list[str] = Field(default_factory=list)
    contradiction_basis: dict[str, ContradictionBasis] = Field(
        default_factory=dict,
        description="for each contradicting evidence id, who saw the contradiction (set "
        "when the model extracted the claims; empty when the detector alone did)",
    )


class ClaimLedger(BaseModel):
    """Every claim of a run with seed 003's job confidence."""

    claims: list[Claim] = Field(default_factory=list)
    job_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    claim_count: int = 0
    source_count: int = 0
    has_contradictions: bool = False
    #: the job confidence in words (``core.certainty.band``: high, moderate or low)
    certainty: str = ""
    #: who grouped the evidence into claims and found the contradictions: the model
    #: (checked by ``core.model_claims``, cross-checked by the detector) or the detector
    extracted_by: Literal["model", "detector"] = "detector"

    @property
    def contradicted(self) -> list[Claim]:
        """The claims some evidence contradicts."""
        return [claim for claim in self.claims if claim.contradiction]

    def claim_of(self, evidence_id: str) -> Claim | None:
        """The claim an evidence record supports."""
        return next((c for c in self.claims if evidence_id in c.supporting), None)


class ExtractedClaim(BaseModel):
    """A claim the model extracted, as validated (``core.model_claims``): its supporting
    evidence (verified, and at least one quote supports the wording by the deterministic
    check) and the verified evidence that contradicts it."""

    text: str
    supporting: list[str] = Field(default_factory=list, description="evidence ids")
    contradicting: list[str] = Field(default_factory=list, description="evidence ids")


class ExtractedClaims(BaseModel):
    """The model's claims that survived validation, and what validation dropped."""

    claims: list[ExtractedClaim] = Field(default_factory=list)
    dropped_claims: int = Field(default=0, description="claims no cited quote supports")
    dropped_ids: int = Field(
        default=0, description="evidence ids cited that do not exist or are not verified"
    )
