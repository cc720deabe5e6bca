"""Seed 001's adaptive threshold and the read/drop decisions with reasons."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from deepresearch.core.ranking import rank_and_select
from deepresearch.core.scoring import ModelDims
from deepresearch.core.threshold import (
    adaptive_threshold,
    select,
    social_ratio,
    threshold_for,
)
from deepresearch.domain_rules import load_domain_rules
from deepresearch.models import SearchHit
from deepresearch.models.scores import SourceScores, SourceType


@pytest.mark.parametrize(
    ("count", "social", "expected"),
    [
        (0, 0.0, 0.45),
        (14, 0.0, 0.45),  # < 15: niche
        (14, 0.9, 0.45),
        (15, 0.0, 0.60),  # 15 is not niche
        (15, 0.5, 0.60),  # exactly half social is not "> 50%"
        (15, 0.51, 0.45),
        (40, 0.0, 0.60),  # 40 is not "> 40"
        (41, 0.0, 0.65),  # well covered
        (41, 0.19, 0.65),
        (41, 0.2, 0.60),  # exactly 20% social is not "< 20%"
        (41, 0.5, 0.60),
        (41, 0.6, 0.45),  # the social rule comes first
        (100, 0.1, 0.65),
    ],
)
def test_adaptive_threshold_boundaries(count: int, social: float, expected: float) -> None:
    assert adaptive_threshold(count, social) == expected


@pytest.mark.parametrize(
    ("count", "social", "expected"),
    [(14, 0.0, 0.35), (15, 0.0, 0.50), (41, 0.0, 0.55), (15, 0.6, 0.35)],
)
def test_an_entity_comparison_lowers_the_threshold(
    count: int, social: float, expected: float
) -> None:
    # seed 001, decision 4: "Query type (entity comparison → lower threshold)"
    assert adaptive_threshold(count, social, comparison=True) == expected
    assert adaptive_threshold(count, social, comparison=True) < adaptive_threshold(count, social)


def test_a_comparison_question_is_ranked_against_the_lower_threshold() -> None:
    """Through the ranking: the same candidates and ratings, and the comparison question's
    bar is 0.10 lower, so a source between the two is read for it and dropped for the
    plain question."""
    hits = [
        SearchHit(url=f"https://s{i}.example/p", title=t, snippet=t, provider="searxng", rank=i)
        for i, t in enumerate(["Saturn rings", "Jupiter moons", "Mars dust storms"] * 6)
    ]
    rules = load_domain_rules(None)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    ratings = {hit.url: ModelDims(0.8, 0.8, 0.8) for hit in hits}

    def bar(query: str) -> float:
        return rank_and_select(hits, query, rules, now=now, limit=None, ratings=ratings).threshold

    plain, compared = (
        bar("How large are the rings of Saturn?"),
        bar("Is Saturn larger than Jupiter?"),
    )
    assert (plain, compared) == (0.60, 0.50)
    between = [scores(0.9, url="https://a.example/best"), scores(0.55), scores(0.2)] * 5
    assert len(select(between, compared, None).read) > len(select(between, plain, None).read)


def test_social_ratio() -> None:
    assert social_ratio([]) == 0.0
    assert social_ratio(["social", "news", "social", "other"]) == 0.5


def scores(final: float, kind: SourceType = "other", url: str = "") -> SourceScores:
    return SourceScores(
        url=url or f"https://a.example/{final}",
        domain="a.example",
        source_type=kind,
        extractability=1.0,
        query_relevance=1.0,
        query_multiplier=1.0,
        domain_authority=30,
        recency=0.5,
        retrieval_relevance=1.0,
        tier="UNVERIFIED",
        credibility=0.3,
        signal_score=final,
        final=final,
    )


def test_threshold_for_counts_results_and_social() -> None:
    many = [scores(0.5)] * 20 + [scores(0.5, "social")] * 21
    assert threshold_for(many) == 0.45
    assert threshold_for([scores(0.5)] * 41) == 0.65
    assert threshold_for([scores(0.5)] * 14) == 0.45


def test_select_at_the_threshold_reads() -> None:
    selection = select([scores(0.6), scores(0.599999)], 0.6, None)
    first, second = selection.decisions
    assert first.decision == "read"
    assert first.reason == "read: rank 1, score 0.60 >= threshold 0.60"
    assert second.decision == "dropped"
    assert second.reason == "dropped: score 0.60 below threshold 0.60"
    assert first.threshold == second.threshold == selection.threshold == 0.6


def test_select_reasons_and_limit() -> None:
    items = [scores(0.41, url="u1"), scores(0.78, url="u2"), scores(0.9, url="u3")]
    items.append(scores(0.7, url="u4"))
    selection = select(items, 0.6, 2)
    assert [s.url for s in selection.decisions] == ["u1", "u2", "u3", "u4"]  # input order
    assert [s.url for s in selection.read] == ["u3", "u2"]
    assert [s.url for s in selection.dropped] == ["u4", "u1"]
    reasons = {s.url: s.reason for s in selection.decisions}
    assert reasons == {
        "u1": "dropped: score 0.41 below threshold 0.60",
        "u2": "read: rank 2, score 0.78 >= threshold 0.60",
        "u3": "read: rank 1, score 0.90 >= threshold 0.60",
        "u4": "dropped: score 0.70 passes threshold 0.60 but is beyond the top 2",
    }


def test_select_ties_keep_input_order() -> None:
    selection = select([scores(0.7, url="a"), scores(0.7, url="b")], 0.6, 1)
    assert [s.url for s in selection.read] == ["a"]
    assert selection.decisions[1].decision == "dropped"


def test_select_limit_zero_and_empty() -> None:
    assert select([scores(0.9)], 0.6, 0).read == []
    empty = select([], 0.6, 3)
    assert empty.decisions == [] and empty.read == [] and empty.dropped == []


def test_select_keeps_every_dimension() -> None:
    original = scores(0.8)
    (decided,) = select([original], 0.6, None).decisions
    assert decided.model_dump(exclude={"decision", "reason", "threshold"}) == (
        original.model_dump(exclude={"decision", "reason", "threshold"})
    )
