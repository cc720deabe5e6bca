"""Source scoring: seed 001's model dimensions and multipliers, seed 003's signals."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from deepresearch.core.scoring import (
    CREDIBILITY,
    EXTRACTABILITY,
    NEUTRAL_MODEL_SCORE,
    ModelDims,
    credibility,
    final_score,
    model_score,
    query_multiplier,
    query_relevance,
    recency,
    retrieval_relevance_of,
    score_hit,
    signal_score,
)
from deepresearch.core.tiers import DomainRules
from deepresearch.domain_rules import load_domain_rules
from deepresearch.models.search import SearchHit

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
QUERY = "solar panel efficiency"


@pytest.fixture(scope="module")
def rules() -> DomainRules:
    return load_domain_rules()


@pytest.mark.parametrize(
    ("dims", "expected"),
    [
        ((1.0, 1.0, 1.0), 1.0),
        ((0.0, 0.0, 0.0), 0.0),
        ((1.0, 0.0, 0.0), 0.5),
        ((0.0, 1.0, 0.0), 0.3),
        ((0.0, 0.0, 1.0), 0.2),
        ((0.8, 0.6, 0.5), 0.68),  # 0.4 + 0.18 + 0.1
        ((2.0, -1.0, 0.0), 0.5),  # each dimension clamped to [0, 1]
    ],
)
def test_model_score_weights_50_30_20(dims: tuple[float, float, float], expected: float) -> None:
    assert model_score(*dims) == pytest.approx(expected)


def test_neutral_model_score_is_half() -> None:
    assert NEUTRAL_MODEL_SCORE == 0.5


def test_extractability_multipliers_match_seed_001() -> None:
    assert dict(EXTRACTABILITY) == {
        "video": 0.20,
        "social": 0.50,
        "wiki": 1.10,
        "academic": 1.08,
        "news": 0.85,
        "other": 1.0,
    }


@pytest.mark.parametrize(
    ("title", "snippet", "expected"),
    [
        ("Solar panel", "efficiency gains", 1.0),
        ("Solar panels", "", 0.333333),  # only "solar" matches
        ("Cooking pasta", "", 0.0),
    ],
)
def test_query_relevance_is_lexical_coverage(title: str, snippet: str, expected: float) -> None:
    assert query_relevance(QUERY, title, snippet) == pytest.approx(expected)


def test_query_relevance_of_stopword_query_is_zero() -> None:
    assert query_relevance("the of", "the of", "") == 0.0


@pytest.mark.parametrize(
    ("relevance", "expected"),
    [(0.0, 0.5), (1.0, 1.0), (0.4, 0.7), (1.5, 1.0), (-1.0, 0.5)],
)
def test_query_multiplier_halves_off_topic_hits(relevance: float, expected: float) -> None:
    assert query_multiplier(relevance) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("days", "expected"),
    [
        (0, 1.0),
        (180, math.exp(-1)),
        (360, math.exp(-2)),
        (90, math.exp(-0.5)),
        (-30, 1.0),  # a future date counts as brand new
    ],
)
def test_recency_decays_over_180_days(days: int, expected: float) -> None:
    assert recency(NOW - timedelta(days=days), NOW) == pytest.approx(expected, abs=1e-6)


def test_recency_unknown_is_half() -> None:
    assert recency(None, NOW) == 0.5


def test_recency_treats_naive_datetimes_as_utc() -> None:
    naive = datetime(2025, 6, 1, 12, 0) - timedelta(days=180)
    assert recency(naive, NOW) == pytest.approx(math.exp(-1), abs=1e-6)


def test_credibility_tiers_match_seed_003() -> None:
    assert dict(CREDIBILITY) == {
        "PRIMARY_SOURCE": 1.0,
        "AUTHORITATIVE": 0.85,
        "SECONDARY": 0.65,
        "UNVERIFIED": 0.3,
        "FLAGGED": 0.0,
    }
    assert credibility("SECONDARY") == 0.65


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((80, 0.5, 0.85, 0.85), 0.7675),  # seed 003's example: 0.2 + 0.1 + 0.2975 + 0.17
        ((100, 1.0, 1.0, 1.0), 1.0),
        ((0, 0.0, 0.0, 0.0), 0.0),
        ((100, 0.0, 0.0, 0.0), 0.25),
        ((0, 1.0, 0.0, 0.0), 0.2),
        ((0, 0.0, 1.0, 0.0), 0.35),
        ((0, 0.0, 0.0, 1.0), 0.2),
        ((400, 1.0, 1.0, 1.0), 1.0),  # clamped above
        ((-400, 0.0, 0.0, 0.0), 0.0),  # clamped below
    ],
)
def test_signal_score_weights_25_20_35_20(
    args: tuple[int, float, float, float], expected: float
) -> None:
    assert signal_score(*args) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("signal", "model", "extract", "mult", "expected"),
    [
        (0.6, None, 1.0, 1.0, 0.6),  # no model: the signal score alone
        (0.6, 0.8, 1.0, 1.0, 0.7),  # with a model: the mean of both
        (0.6, 0.8, 0.2, 1.0, 0.14),  # a video keeps a fifth
        (0.6, 0.8, 0.85, 0.5, 0.2975),  # news, off-topic
        (0.9, None, 1.1, 1.0, 0.99),
        (1.0, None, 1.1, 1.0, 1.0),  # clamped to 1
        (0.0, 0.0, 1.08, 1.0, 0.0),
    ],
)
def test_final_score_combination(
    signal: float, model: float | None, extract: float, mult: float, expected: float
) -> None:
    assert final_score(signal, model, extract, mult) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("score", "rank", "expected"),
    [(0.7, 5, 0.7), (3.2, 0, 1.0), (-1.0, 0, 0.0), (None, 0, 1.0), (None, 3, 0.25)],
)
def test_retrieval_relevance_is_provider_score_else_rank(
    score: float | None, rank: int, expected: float
) -> None:
    hit = SearchHit(url="https://a.example/", provider="p", rank=rank, score=score)
    assert retrieval_relevance_of(hit) == pytest.approx(expected)


def reuters_hit() -> SearchHit:
    return SearchHit(
        url="https://www.reuters.com/x",
        title="Solar panel efficiency",
        provider="p",
        rank=1,
        published=NOW - timedelta(days=180),
    )


# reuters.com: AUTHORITATIVE (0.85), authority 90, news (0.85); retrieval 1/(1+1) = 0.5;
# signal = 0.225 + 0.2·e^-1 + 0.175 + 0.17 = 0.6435758
SIGNAL = 0.225 + 0.2 * math.exp(-1) + 0.175 + 0.17


def test_score_hit_without_model_uses_signals(rules: DomainRules) -> None:
    scores = score_hit(reuters_hit(), QUERY, rules, now=NOW)
    assert scores.url == "https://www.reuters.com/x"
    assert scores.domain == "reuters.com"
    assert (scores.tier, scores.domain_authority, scores.source_type) == (
        "AUTHORITATIVE",
        90,
        "news",
    )
    assert scores.credibility == 0.85
    assert scores.retrieval_relevance == 0.5
    assert scores.recency == pytest.approx(math.exp(-1), abs=1e-6)
    assert scores.signal_score == pytest.approx(SIGNAL, abs=1e-6)
    assert (scores.query_relevance, scores.query_multiplier) == (1.0, 1.0)
    assert scores.extractability == 0.85
    assert scores.model_status == "none"
    assert scores.model_score is None
    assert scores.relevance is scores.quality is scores.usefulness is None
    assert scores.final == pytest.approx(SIGNAL * 0.85, abs=1e-6)
    assert scores.decision is None and scores.threshold is None


def test_score_hit_with_model_averages_model_and_signal(rules: DomainRules) -> None:
    dims = ModelDims(relevance=1.0, quality=1.0, usefulness=1.0)
    scores = score_hit(reuters_hit(), QUERY, rules, now=NOW, model_dims=dims)
    assert scores.model_status == "scored"
    assert (scores.relevance, scores.quality, scores.usefulness) == (1.0, 1.0, 1.0)
    assert scores.model_score == 1.0
    assert scores.final == pytest.approx((1.0 + SIGNAL) / 2 * 0.85, abs=1e-6)


def test_score_hit_failed_model_is_neutral(rules: DomainRules) -> None:
    scores = score_hit(reuters_hit(), QUERY, rules, now=NOW, model_failed=True)
    assert scores.model_status == "failed"
    assert scores.model_score == 0.5
    assert scores.relevance is None
    assert scores.final == pytest.approx((0.5 + SIGNAL) / 2 * 0.85, abs=1e-6)


def test_score_hit_retrieval_relevance_override(rules: DomainRules) -> None:
    scores = score_hit(reuters_hit(), QUERY, rules, now=NOW, retrieval_relevance=1.0)
    assert scores.retrieval_relevance == 1.0
    assert scores.signal_score == pytest.approx(SIGNAL + 0.175, abs=1e-6)


def test_score_hit_local_corpus_and_video(rules: DomainRules) -> None:
    local = score_hit(SearchHit(url="file:///docs/a.txt", provider="local"), QUERY, rules, now=NOW)
    assert (local.domain, local.tier, local.domain_authority) == ("local corpus", "SECONDARY", 65)
    assert local.source_type == "other"
    # 0.1625 + 0.1 (unknown date) + 0.35 (rank 0) + 0.13 = 0.7425; off-topic: x 0.5
    assert local.signal_score == pytest.approx(0.7425)
    assert local.final == pytest.approx(0.37125)
    video = score_hit(
        SearchHit(url="https://youtube.com/watch?v=1", title=QUERY, provider="p"),
        QUERY,
        rules,
        now=NOW,
    )
    assert (video.source_type, video.extractability) == ("video", 0.2)
    assert video.final == pytest.approx(video.signal_score * 0.2, abs=1e-6)
