"""BM25 and lexical overlap."""

from __future__ import annotations

import math

import pytest

from deepresearch.core.lexical import BM25, overlap


def test_bm25_prefers_documents_with_the_rarer_term() -> None:
    bm25 = BM25(["solar power plants", "wind power farms", "power lines and power poles"])
    scores = bm25.scores("solar power")
    assert scores[0] == max(scores)
    assert scores[1] > 0 and scores[2] > 0  # "power" is everywhere but still counts a bit
    assert bm25.scores("hydro") == [0.0, 0.0, 0.0]


def test_bm25_matches_the_okapi_formula() -> None:
    bm25 = BM25(["apple apple banana", "banana cherry"])
    n, df, tf, length, avg = 2, 1, 2, 3, 2.5
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    norm = 1 - 0.75 + 0.75 * length / avg
    assert bm25.score("apple", 0) == pytest.approx(idf * tf * 2.5 / (tf + 1.5 * norm))


def test_bm25_ignores_stopwords_and_repeated_query_terms() -> None:
    bm25 = BM25(["the cat sat", "a dog ran"])
    assert bm25.scores("the") == [0.0, 0.0]
    assert bm25.score("cat cat cat", 0) == bm25.score("cat", 0)


def test_bm25_of_no_texts() -> None:
    assert BM25([]).scores("anything") == []


def test_overlap_is_the_share_of_query_content_words_found() -> None:
    assert overlap("solar panel efficiency", "Efficiency of SOLAR cells") == pytest.approx(2 / 3)
    assert overlap("solar panel", "solar panel") == 1.0
    assert overlap("solar", "wind") == 0.0
    assert overlap("what is the", "anything") == 0.0
