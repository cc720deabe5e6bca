"""Choosing which candidates a sub-question reads: both scoring schemes, the adaptive
threshold and the decisions, composed. Pure: the rank stage gathers the model's ratings
and calls this; the ranking benchmark calls it directly.

A judge cannot make the ranking worse than having no judge: ratings that carry no signal
(``judge_problem``: missing, out of range, all the neutral 0.5, all the same) are not
used, and the sub-question is ranked exactly as without a model, its reasons saying why."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal

from deepresearch.core.answers import own_page
from deepresearch.core.questions import analyze_question
from deepresearch.core.scoring import NEUTRAL_MODEL_SCORE, ModelDims, model_score, score_hit
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
    unjudged: str | None = None,
) -> Selection:
    """Score every hit (signal score, plus the model's rating where ``ratings`` has one),
    set seed 001's adaptive threshold from the results, and decide: the best ``limit``
    above the threshold are read, and at least two when any are usable.

    ``threshold``: ``always`` filters by it; ``never`` reports it but reads the best
    ``limit``; ``auto`` (default) filters only when a model rated the candidates. Seed
    001's thresholds are set for its model scores; the signal score alone runs lower (a
    page of unknown date from an unlisted host rarely reaches 0.45), and the ranking
    benchmark measured that filtering it cuts recall (0.785 → 0.635 on HotpotQA) while the
    ranking itself matches the search engine's order (0.785 vs 0.780).

    ``unjudged``: the judge was asked but its ratings could not be used (this says why):
    ``ratings`` are ignored, the ranking is the no-model one, and every reason ends with
    ``(judge not used: <why>)``."""
    if unjudged is not None:
        plain = rank_and_select(hits, query, rules, now=now, limit=limit, threshold=threshold)
        note = f" (judge not used: {unjudged})"
        return plain.model_copy(
            update={
                "decisions": [
                    s.model_copy(update={"reason": s.reason + note}) for s in plain.decisions
                ]
            }
        )
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
    comparison = analyze_question(query).comparison  # seed 001: a comparison's bar is lower
    selection = select(scored, threshold_for(scored, comparison=comparison), limit)
    # Seed 001's threshold is set for model scores: it filters only when some were given
    # (a judge that failed on every candidate leaves nothing but the neutral 0.5).
    judged = any(dims is not None for dims in ratings.values())
    applies = threshold == "always" or (threshold == "auto" and judged)
    if applies or limit is None:
        return ensure_minimum(selection)
    return ensure_minimum(selection, minimum=limit)


def read_own_pages(selection: Selection, keys: Sequence[str]) -> Selection:
    """``selection`` with the own page (``core.answers.own_page``: "Velvet Moths" or
    "Velvet Moths (band)", not "Salt Harbour (Velvet Moths album)") of each of ``keys``
    (mention keys of the things the question names) read too, when it is a candidate
    with a positive score that was not chosen: the page about a thing the question names
    is where its facts are, and a search for several things, or a judge rating the
    snippets, can rank pages that only name it above it. One page per thing, the best
    scored; they are read in addition to the others (none is dropped for them)."""
    read = selection.read
    wanted = [key for key in keys if key and not any(own_page(s.title, key) for s in read)]
    promote: set[str] = set()
    reasons: dict[str, str] = {}
    for key in wanted:
        pages = [s for s in selection.dropped if s.final > 0 and own_page(s.title, key)]
        if pages and pages[0].url not in promote:
            promote.add(pages[0].url)
            reasons[pages[0].url] = (
                f"read: the page of {pages[0].title!r}, which the question names "
                f"(score {pages[0].final:.2f})"
            )
    if not promote:
        return selection
    decisions = [
        s.model_copy(update={"decision": "read", "reason": reasons[s.url]})
        if s.url in promote and s.decision == "dropped"
        else s
        for s in selection.decisions
    ]
    return selection.model_copy(update={"decisions": decisions})


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


def judge_problem(ratings: Mapping[str, ModelDims], asked: Sequence[str]) -> str | None:
    """Why the judge's ratings of the ``asked`` candidates (urls) carry no usable signal,
    or None when they do: some candidates unrated, a score that is not a number in 0..1,
    every candidate given the neutral 0.5, or (for two or more) every candidate the same
    score. A judge that says nothing must not move the ranking or trigger the threshold."""
    if not asked:
        return None
    rated = [ratings[url] for url in asked if url in ratings]
    if not rated:
        return "the judge rated none of the candidates"
    if len(rated) < len(asked):
        return f"the judge rated {len(rated)} of {len(asked)} candidates"
    values = [value for dims in rated for value in dims]
    if not all(math.isfinite(value) and 0.0 <= value <= 1.0 for value in values):
        return "the judge gave scores outside 0..1"
    if all(value == NEUTRAL_MODEL_SCORE for value in values):
        return "the judge gave every candidate the neutral 0.5"
    scores = {model_score(*dims) for dims in rated}
    if len(rated) > 1 and len(scores) == 1:
        return f"the judge gave every candidate the same score ({scores.pop():.2f})"
    return None
