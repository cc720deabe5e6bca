"""Choosing which candidates a sub-question reads: both scoring schemes, the adaptive
threshold and the decisions, composed. Pure: the rank stage gathers the model's ratings
and calls this; the ranking benchmark calls it directly."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from deepresearch.core.scoring import ModelDims, score_hit
from deepresearch.core.threshold import Selection, ensure_minimum, select, threshold_for
from deepresearch.core.tiers import DomainRules
from deepresearch.models import SearchHit

#: url -> the model's rating, or None when the model was asked and failed
Ratings = Mapping[str, ModelDims | None]


def rank_and_select(
    hits: Sequence[SearchHit],
    query: str,
    rules: DomainRules,
    *,
    now: datetime,
    limit: int | None,
    ratings: Ratings | None = None,
) -> Selection:
    """Score every hit (signal score, plus the model's rating where ``ratings`` has one),
    set seed 001's adaptive threshold from the results, and decide: the best ``limit``
    above the threshold are read, and at least two when any are usable."""
    ratings = ratings or {}
    retrieval = retrieval_relevance(hits)
    scored = [
        score_hit(
            hit,
            query,
            rules,
            now=now,
            model_dims=ratings.get(hit.url),
            model_failed=hit.url in ratings and ratings[hit.url] is None,
            retrieval_relevance=relevance,
        )
        for hit, relevance in zip(hits, retrieval, strict=True)
    ]
    return ensure_minimum(select(scored, threshold_for(scored), limit))


def retrieval_relevance(hits: Sequence[SearchHit]) -> list[float]:
    """Seed 003's "pass-through from retrieval search score", made comparable: providers
    score on their own scales (SearXNG's and BM25's are unbounded), so a hit's score is
    divided by the best score its query got; hits without a score use 1 / (1 + rank)."""
    best: dict[tuple[str, str], float] = {}
    for hit in hits:
        if hit.score is not None and hit.score > 0:
            key = (hit.provider, hit.query)
            best[key] = max(best.get(key, 0.0), hit.score)
    out = []
    for hit in hits:
        top = best.get((hit.provider, hit.query))
        if hit.score is not None and top:
            out.append(max(0.0, min(1.0, hit.score / top)))
        else:
            out.append(1.0 / (1.0 + hit.rank))
    return out
