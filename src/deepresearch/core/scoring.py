"""Scoring one candidate source: model dimensions (seed 001), signals (seed 003). Pure.

Seed 001, 4.3 (ReRanker): "Relevance 50%, Quality 30%, Usefulness 20%", then
"LLM Score -> Extractability Multiplier -> Query Relevance Multiplier -> Final Score", with
extractability "VIDEO 0.20, SOCIAL_MEDIA 0.50, WIKI 1.10, ACADEMIC 1.08, NEWS 0.85"
(others 1.0) and a neutral 0.5 when the judge fails.

Seed 003, stage 3: "(da * 0.25) + (rec * 0.2) + (rel * 0.35) + (cred * 0.2) clamped to
[0, 1]" where da is domain authority / 100, rec is ``exp(-daysSincePublished / 180)`` or 0.5
if unknown, rel the retrieval score, cred the tier's credibility.

How the two combine (``final_score``)::

    base  = signal                      without a model (--model none)
    base  = (model + signal) / 2        with a model (scored, or neutral 0.5 on failure)
    final = clamp(base * extractability * query_multiplier, 0, 1)

The model judges the content, the signals judge provenance; neither alone decides. Seed
001's post-processing applies to the blend in both modes, so a video or an off-topic hit
is penalized with or without a model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import NamedTuple

from deepresearch.core.fusion import found_by
from deepresearch.core.gate import domain_of
from deepresearch.core.lexical import overlap
from deepresearch.core.tiers import DomainRules, authority_for, source_type_for, tier_for
from deepresearch.models.scores import ModelStatus, SourceScores, SourceType, Tier
from deepresearch.models.search import SearchHit

W_RELEVANCE = 0.5
W_QUALITY = 0.3
W_USEFULNESS = 0.2
NEUTRAL_MODEL_SCORE = 0.5
"""Seed 001: the score a source gets when the judge model fails on it."""

EXTRACTABILITY: Mapping[SourceType, float] = {
    "video": 0.20,
    "social": 0.50,
    "wiki": 1.10,
    "academic": 1.08,
    "news": 0.85,
    "other": 1.0,
}

W_AUTHORITY = 0.25
W_RECENCY = 0.20
W_RETRIEVAL = 0.35
W_CREDIBILITY = 0.20
RECENCY_DAYS = 180.0
UNKNOWN_RECENCY = 0.5

CREDIBILITY: Mapping[Tier, float] = {
    "PRIMARY_SOURCE": 1.0,
    "AUTHORITATIVE": 0.85,
    "SECONDARY": 0.65,
    "UNVERIFIED": 0.3,
    "FLAGGED": 0.0,
}

QUERY_FLOOR = 0.5
"""``query_multiplier`` of a hit sharing no word with the query: it is halved."""

_DIGITS = 6


class ModelDims(NamedTuple):
    """The judge model's three dimensions, each in [0, 1]."""

    relevance: float
    quality: float
    usefulness: float


def clamp(value: float, low: float = 0.0, high: float = 1.0) -> float:
    return max(low, min(high, value))


def model_score(relevance: float, quality: float, usefulness: float) -> float:
    """Seed 001: relevance 50%, quality 30%, usefulness 20% (each clamped to [0, 1])."""
    total = (
        W_RELEVANCE * clamp(relevance)
        + W_QUALITY * clamp(quality)
        + W_USEFULNESS * clamp(usefulness)
    )
    return round(total, _DIGITS)


def query_relevance(query: str, title: str, snippet: str) -> float:
    """Share of the query's distinct content words found in the title or snippet (0..1)."""
    return round(overlap(query, f"{title} {snippet}"), _DIGITS)


def query_multiplier(relevance: float) -> float:
    """``0.5 + 0.5 * relevance``: 1.0 for a hit covering the whole query, 0.5 for none."""
    return round(QUERY_FLOOR + (1.0 - QUERY_FLOOR) * clamp(relevance), _DIGITS)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def recency(published: datetime | None, now: datetime) -> float:
    """Seed 003: ``exp(-days / 180)``; 0.5 when unknown; 1.0 for a date in the future.

    Naive datetimes are taken as UTC."""
    if published is None:
        return UNKNOWN_RECENCY
    days = (_aware(now) - _aware(published)).total_seconds() / 86400.0
    if days <= 0:
        return 1.0
    return round(math.exp(-days / RECENCY_DAYS), _DIGITS)


def credibility(tier: Tier) -> float:
    """Seed 003: PRIMARY_SOURCE 1.0, AUTHORITATIVE 0.85, SECONDARY 0.65, UNVERIFIED 0.3,
    FLAGGED 0.0."""
    return CREDIBILITY[tier]


def signal_score(authority: int, recency: float, relevance: float, credibility: float) -> float:
    """Seed 003: ``authority/100 * 0.25 + recency * 0.2 + relevance * 0.35 +
    credibility * 0.2``, clamped to [0, 1]."""
    total = (
        W_AUTHORITY * authority / 100.0
        + W_RECENCY * recency
        + W_RETRIEVAL * relevance
        + W_CREDIBILITY * credibility
    )
    return round(clamp(total), _DIGITS)


def final_score(
    signal: float, model: float | None, extractability: float, query_mult: float
) -> float:
    """``clamp(base * extractability * query_mult)`` where ``base`` is the signal score
    without a model and the mean of model and signal scores with one."""
    base = signal if model is None else (model + signal) / 2.0
    return round(clamp(base * extractability * query_mult), _DIGITS)


def retrieval_relevance_of(hit: SearchHit) -> float:
    """The provider's score clamped to [0, 1] if it gave one, else ``1 / (1 + rank)``."""
    if hit.score is not None:
        return clamp(hit.score)
    return round(1.0 / (1.0 + hit.rank), _DIGITS)


def score_hit(
    hit: SearchHit,
    query: str,
    rules: DomainRules,
    *,
    now: datetime,
    model_dims: ModelDims | None = None,
    model_failed: bool = False,
    retrieval_relevance: float | None = None,
) -> SourceScores:
    """Every dimension of ``hit`` for ``query``; no decision yet (see ``core.threshold``).

    ``model_dims`` are the judge's scores; ``model_failed`` means the judge was asked but
    failed, which gives seed 001's neutral 0.5; neither means no model (signals only).
    ``retrieval_relevance`` overrides ``retrieval_relevance_of(hit)``.
    """
    status: ModelStatus = "none"
    judged: float | None = None
    if model_dims is not None:
        status, judged = "scored", model_score(*model_dims)
    elif model_failed:
        status, judged = "failed", NEUTRAL_MODEL_SCORE
    source_type = source_type_for(hit.url, rules)
    tier = tier_for(hit.url, rules)
    authority = authority_for(hit.url, rules)
    fresh = recency(hit.published, now)
    retrieved = clamp(
        retrieval_relevance if retrieval_relevance is not None else retrieval_relevance_of(hit)
    )
    cred = credibility(tier)
    signal = signal_score(authority, fresh, retrieved, cred)
    lexical = query_relevance(query, hit.title, hit.snippet)
    multiplier = query_multiplier(lexical)
    extract = EXTRACTABILITY[source_type]
    return SourceScores(
        url=hit.url,
        domain=domain_of(hit.url),
        title=hit.title[:300],
        providers=found_by(hit),
        relevance=clamp(model_dims.relevance) if model_dims else None,
        quality=clamp(model_dims.quality) if model_dims else None,
        usefulness=clamp(model_dims.usefulness) if model_dims else None,
        model_score=judged,
        model_status=status,
        source_type=source_type,
        extractability=extract,
        query_relevance=lexical,
        query_multiplier=multiplier,
        domain_authority=authority,
        recency=fresh,
        retrieval_relevance=retrieved,
        tier=tier,
        credibility=cred,
        signal_score=signal,
        final=final_score(signal, judged, extract, multiplier),
    )
