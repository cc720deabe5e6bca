"""Ranking search hits: lexical overlap, provider order and provider score, in [0, 1]."""

from __future__ import annotations

import random

import pytest

from deepresearch.core.ranking import W_OVERLAP, W_POSITION, W_PROVIDER, rank_hits
from deepresearch.models import SearchHit

QUERY = "solar panel efficiency"


def hit(n: int, title: str, *, rank: int | None = None, score: float | None = None) -> SearchHit:
    return SearchHit(
        url=f"https://e.example/{n}",
        title=title,
        provider="p",
        rank=n if rank is None else rank,
        score=score,
    )


def test_weights_sum_to_one() -> None:
    assert pytest.approx(1.0) == W_OVERLAP + W_POSITION + W_PROVIDER


def test_overlap_outranks_provider_position() -> None:
    hits = [
        hit(0, "Nothing related"),
        hit(1, "Solar panel efficiency explained"),
        hit(2, "Solar panel prices"),
    ]
    ranked = rank_hits(hits, QUERY)
    assert [r.hit.rank for r in ranked] == [1, 2, 0]
    assert [r.overlap for r in ranked] == [1.0, pytest.approx(2 / 3), 0.0]


def test_equal_overlap_is_ordered_by_position() -> None:
    hits = [hit(n, "solar panel efficiency") for n in (3, 0, 2, 1)]
    ranked = rank_hits(hits, QUERY)
    assert [r.hit.rank for r in ranked] == [0, 1, 2, 3]
    assert [r.position for r in ranked] == [1.0, 0.5, pytest.approx(1 / 3), 0.25]


def test_score_formula() -> None:
    ranked = rank_hits([hit(1, "solar panel", score=0.9)], QUERY)[0]
    expected = W_OVERLAP * (2 / 3) + W_POSITION * 0.5 + W_PROVIDER * 0.9
    assert ranked.score == round(expected, 6)


def test_missing_provider_score_uses_position() -> None:
    ranked = rank_hits([hit(3, "solar panel efficiency")], QUERY)[0]
    assert ranked.score == round(W_OVERLAP + (W_POSITION + W_PROVIDER) * 0.25, 6)


@pytest.mark.parametrize(("raw", "clamped"), [(5.0, 1.0), (-3.0, 0.0), (0.4, 0.4)])
def test_provider_score_is_clamped(raw: float, clamped: float) -> None:
    ranked = rank_hits([hit(0, "x", score=raw)], QUERY)[0]
    assert ranked.score == round(W_POSITION * 1.0 + W_PROVIDER * clamped, 6)


def test_scores_stay_in_unit_interval() -> None:
    rng = random.Random(5)
    vocabulary = ["solar", "panel", "efficiency", "wind", "the", "cost", "grid"]
    hits = [
        hit(
            n,
            " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 6))),
            rank=rng.randint(0, 50),
            score=rng.choice([None, rng.uniform(-10, 10)]),
        )
        for n in range(200)
    ]
    ranked = rank_hits(hits, QUERY)
    assert len(ranked) == len(hits)
    assert all(0.0 <= r.score <= 1.0 for r in ranked)
    assert all(0.0 <= r.overlap <= 1.0 and 0.0 < r.position <= 1.0 for r in ranked)
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True)


def test_snippet_counts_for_overlap() -> None:
    with_snippet = SearchHit(
        url="https://e.example/s", title="", snippet="panel efficiency", provider="p", rank=5
    )
    ranked = rank_hits([hit(4, "unrelated"), with_snippet], QUERY)
    assert ranked[0].hit is with_snippet
    assert ranked[0].overlap == pytest.approx(2 / 3)


def test_ties_keep_input_order() -> None:
    hits = [hit(n, "same title", rank=0) for n in range(6)]
    ranked = rank_hits(hits, QUERY)
    assert [r.hit.url for r in ranked] == [h.url for h in hits]
    assert len({r.score for r in ranked}) == 1


def test_a_stopword_query_ranks_by_position_only() -> None:
    hits = [hit(n, "the what is", rank=r) for n, r in enumerate([2, 0, 1])]
    ranked = rank_hits(hits, "what is the")
    assert [r.hit.rank for r in ranked] == [0, 1, 2]
    assert all(r.overlap == 0.0 for r in ranked)


def test_no_hits() -> None:
    assert rank_hits([], QUERY) == []
