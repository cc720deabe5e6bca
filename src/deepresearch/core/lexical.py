"""BM25 over a small set of texts, for ranking passages and hits, and lexical overlap. Pure.

``BM25`` is ``core.bm25.BM25Okapi`` over texts tokenized with ``core.text.content_words``
and a light stem (``core.questions.stem``), so "generators" finds "generator".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from deepresearch.core.bm25 import K1, B, BM25Okapi
from deepresearch.core.questions import stem
from deepresearch.core.text import content_words


def terms(text: str) -> list[str]:
    """The BM25 terms of ``text``: its content words, lightly stemmed."""
    return [stem(word) for word in content_words(text)]


class BM25:
    """BM25 (k1=1.5, b=0.75 by default) over ``texts``; ``idf`` replaces its term weights."""

    def __init__(
        self,
        texts: Sequence[str],
        *,
        k1: float = K1,
        b: float = B,
        idf: Mapping[str, float] | None = None,
    ) -> None:
        self._index = BM25Okapi([Counter(terms(text)) for text in texts], k1=k1, b=b, idf=idf)

    @property
    def idf(self) -> dict[str, float]:
        """The weight of every term of these texts."""
        return self._index.idf_table()

    def score(self, query: str, index: int) -> float:
        return self._index.scores(terms(query)).get(index, 0.0)

    def scores(self, query: str) -> list[float]:
        found = self._index.scores(terms(query))
        return [found.get(index, 0.0) for index in range(self._index.size)]


def overlap(query: str, text: str) -> float:
    """Share of the query's distinct content words found in ``text`` (0..1)."""
    wanted = set(content_words(query))
    if not wanted:
        return 0.0
    return len(wanted & set(content_words(text))) / len(wanted)
