"""BM25 (Okapi) over a small set of texts, for ranking passages and hits. Pure."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from deepresearch.core.text import content_words


class BM25:
    """BM25 with k1=1.5, b=0.75 over ``texts`` (tokenized with ``content_words``)."""

    def __init__(
        self,
        texts: Sequence[str],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        idf: dict[str, float] | None = None,
    ) -> None:
        self.k1 = k1
        self.b = b
        self.docs = [Counter(content_words(text)) for text in texts]
        self.lengths = [sum(doc.values()) for doc in self.docs]
        self.avg_length = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        df: Counter[str] = Counter()
        for doc in self.docs:
            df.update(doc.keys())
        n = len(self.docs)
        self.idf = (
            idf
            if idf is not None
            else {
                term: math.log(1 + (n - count + 0.5) / (count + 0.5)) for term, count in df.items()
            }
        )

    def score(self, query: str, index: int) -> float:
        doc = self.docs[index]
        length = self.lengths[index]
        total = 0.0
        for term in set(content_words(query)):
            tf = doc.get(term, 0)
            if not tf:
                continue
            norm = 1 - self.b + self.b * (length / self.avg_length if self.avg_length else 0.0)
            total += self.idf.get(term, 0.0) * tf * (self.k1 + 1) / (tf + self.k1 * norm)
        return total

    def scores(self, query: str) -> list[float]:
        return [self.score(query, index) for index in range(len(self.docs))]


def overlap(query: str, text: str) -> float:
    """Share of the query's distinct content words found in ``text`` (0..1)."""
    wanted = set(content_words(query))
    if not wanted:
        return 0.0
    return len(wanted & set(content_words(text))) / len(wanted)
