"""BM25 Okapi ranking and the tokenizer."""

from __future__ import annotations

import math

import pytest

from deepresearch.core.bm25 import BM25Okapi
from deepresearch.testing.tokens import STOPWORDS, tokenize, words


def test_tokenize_lowercases_keeps_unicode_and_drops_stopwords() -> None:
    assert tokenize("The Café of Zürich, in 2022!") == ["café", "zürich", "2022"]
    assert words("The Café") == ["the", "café"]
    assert "the" in STOPWORDS


def test_more_occurrences_rank_higher() -> None:
    index = BM25Okapi(
        [
            tokenize("apple banana cherry"),
            tokenize("apple apple apple banana"),
            tokenize("cherry date elderberry"),
        ]
    )
    ranking = index.top(["apple"], 10)
    assert [doc for doc, _ in ranking] == [1, 0]
    assert ranking[0][1] > ranking[1][1] > 0


def test_rare_terms_weigh_more_than_common_ones() -> None:
    corpus = [tokenize(text) for text in ["common rare", "common", "common", "common other"]]
    index = BM25Okapi(corpus)
    assert index.idf("rare") > index.idf("common") > 0
    assert index.idf("absent") == 0.0
    scores = index.scores(["common", "rare"])
    assert max(scores, key=lambda doc: scores[doc]) == 0


def test_length_normalisation_prefers_the_shorter_document() -> None:
    short = ["term", "x"]
    long = ["term"] + [f"filler{i}" for i in range(50)]
    index = BM25Okapi([long, short])
    assert [doc for doc, _ in index.top(["term"], 2)] == [1, 0]


def test_score_matches_the_okapi_formula() -> None:
    docs = [["a1", "b1", "a1"], ["b1"], ["c1", "c1"]]
    index = BM25Okapi(docs, k1=1.5, b=0.75)
    avg = 2.0
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expected = idf * 2 * 2.5 / (2 + 1.5 * (1 - 0.75 + 0.75 * 3 / avg))
    assert index.scores(["a1"])[0] == pytest.approx(expected)


def test_term_frequency_maps_and_ties_are_stable() -> None:
    index = BM25Okapi([{"x": 1}, {"x": 1}, {"y": 2}])
    assert index.top(["x"], 5) == sorted(index.top(["x"], 5), key=lambda item: item[0])
    assert index.scores(["x", "x"]) == index.scores(["x"])
    assert BM25Okapi([]).scores(["x"]) == {}
