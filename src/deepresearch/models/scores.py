"""Every score a candidate source gets, kept for transparency (the sources issue).

One ``SourceScores`` per search hit carries the model dimensions (seed 001, 4.3), the
signal dimensions (seed 003, stage 3), the multipliers, the final score, the threshold it
was held against and the decision with its reason. No I/O lives here."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

SourceType = Literal["video", "social", "wiki", "academic", "news", "other"]
Tier = Literal["PRIMARY_SOURCE", "AUTHORITATIVE", "SECONDARY", "UNVERIFIED", "FLAGGED"]
Decision = Literal["read", "dropped"]
ModelStatus = Literal["scored", "failed", "none"]

TIERS: tuple[Tier, ...] = (
    "PRIMARY_SOURCE",
    "AUTHORITATIVE",
    "SECONDARY",
    "UNVERIFIED",
    "FLAGGED",
)
SOURCE_TYPES: tuple[SourceType, ...] = ("video", "social", "wiki", "academic", "news", "other")

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
"""A score in [0, 1]."""


class SourceScores(BaseModel):
    """All dimension scores of one candidate source, its final score and the decision.

    Model dimensions (``relevance``, ``quality``, ``usefulness``) are ``None`` when no
    model judged the source (``--model none``) or the judge failed; ``model_status`` says
    which, and on failure ``model_score`` is seed 001's neutral 0.5. ``threshold``,
    ``decision`` and ``reason`` are filled in by ``core.threshold.select``.
    """

    model_config = ConfigDict(frozen=True)

    url: str
    domain: str
    #: the page's title as the search result gave it (empty in records made before titles
    #: were kept); a local document is shown by its title
    title: str = ""
    #: the search providers that returned this candidate (empty in records made before
    #: providers were tracked)
    providers: tuple[str, ...] = ()
    # seed 001, 4.3: the judge model's dimensions and their 50/30/20 composite
    relevance: Unit | None = None
    quality: Unit | None = None
    usefulness: Unit | None = None
    model_score: Unit | None = None
    model_status: ModelStatus = "none"
    # seed 001, 4.3: post-processing multipliers
    source_type: SourceType = "other"
    extractability: float = Field(ge=0.0)
    query_relevance: Unit
    query_multiplier: float = Field(ge=0.0)
    # seed 003, stage 3: the signal dimensions and their 25/20/35/20 composite
    domain_authority: int = Field(ge=0, le=100)
    recency: Unit
    retrieval_relevance: Unit
    tier: Tier
    credibility: Unit
    signal_score: Unit
    # the combination and the selection
    final: Unit
    threshold: float | None = None
    decision: Decision | None = None
    reason: str = ""
