"""Choosing which candidates a sub-question reads: both scoring schemes, the adaptive
threshold and the decisions, composed. Pure: the rank stage gathers the model's ratings
and calls this; the ranking benchmark calls it directly."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal

from deepresearch.core.scoring import ModelDims, score_hit
from deepresearch.core.threshold import Selection, ensure_minimum, select, threshold_for
from deepresearch.core.tiers import DomainRules
from deepresearch.models import SearchHit

#: url -> the model's rating, or None when the model was asked and failed
Ratings = Mapping[str, ModelDims | None]
ThresholdPolicy = Literal["auto", "always", "never"]


def rank_and_select(
    hits: Sequence[SearchHit],
    query: str,
    rules: DomainRules,
    *,
    now: datetime,
    limit: int | None,
    ratings: Ratings | None = None,
    threshold: ThresholdPolicy = "auto",
) -> Selection:
    """Score every hit (signal score, plus the model's rating where ``ratings`` has one),
    set seed 001's adaptive threshold from the results, and decide: the best ``limit``
    above the threshold are read, and at least two when any are usable.

    ``threshold``: ``always`` filters by it; ``never`` reports it but reads the best
    ``limit``; ``auto`` (default) filters only when a model rated the candidates. Seed
    001's thresholds are set for its model scores; the signal score alone runs lower (a
    page of unknown date from an unlisted host rarely reaches 0.45), and the ranking
    benchmark measured that filtering it cuts recall (0.785 → 0.635 on HotpotQA) while the
    ranking itself matches the search engine's order (0.785 vs 0.780)."""
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
    selection = select(scored, threshold_for(scored), limit)
    applies = threshold == "always" or (threshold == "auto" and bool(ratings))
    if applies or limit is None:
        return ensure_minimum(selection)
    return ensure_minimum(selection, minimum=limit)


def retrieval_relevance(hits: Sequence[SearchHit]) -> list[float]:
    """Seed 003's "pass-through from retrieval search score", where it is one: a provider
    whose scores all lie in 0..1 (Tavily, Exa, the local corpus) passes them through; one
    that scores on its own unbounded scale (SearXNG, BM25) or not at all is read by its
    order instead, 1 / (1 + rank). (Dividing unbounded scores by the query's best was
    measured worse: it flattens the order; see docs/benchmarks.md, ranking.)"""
    bounded: dict[str, bool] = {}
    for hit in hits:
        ok = hit.score is not None and 0.0 <= hit.score <= 1.0
        bounded[hit.provider] = bounded.get(hit.provider, True) and ok
    return [
        hit.score if bounded[hit.provider] and hit.score is not None else 1.0 / (1.0 + hit.rank)
        for hit in hits
    ]
