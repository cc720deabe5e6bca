"""BM25 Okapi ranking over an inverted index, plus the tokenizer it uses.

Pure and dependency-free: documents go in as token lists (or term-frequency maps), queries
come back as ``{doc_index: score}``. The IDF is the always-positive variant
``log(1 + (N - df + 0.5) / (df + 0.5))`` so a term found in most documents still counts a
little instead of going negative.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

K1 = 1.5
B = 0.75

_WORD = re.compile(r"\w+")

_STOPWORD_TEXT = """a about an and are as at be been but by can did do does for from had has have
how i if in into is it its of on or that the their there these they this to was were what when
where which who whom why will with you your"""

#: A short English stopword list: words too common to help ranking.
STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())


def words(text: str) -> list[str]:
    """Lowercased unicode word tokens of ``text``, stopwords kept (used for phrases)."""
    return _WORD.findall(text.lower())


def tokenize(text: str) -> list[str]:
    """Lowercased unicode word tokens of ``text`` without stopwords (used for ranking)."""
    return [token for token in _WORD.findall(text.lower()) if token not in STOPWORDS]


class BM25Okapi:
    """An Okapi BM25 index over a fixed list of documents.

    Each document is either a token sequence or a term-frequency mapping; the document
    length is the sum of its term frequencies. Field weighting (a title counted twice, say)
    is done by the caller by adding to the frequencies.
    """

    def __init__(
        self,
        documents: Iterable[Sequence[str] | Mapping[str, int]],
        *,
        k1: float = K1,
        b: float = B,
    ) -> None:
        self.k1 = k1
        self.b = b
        self._postings: dict[str, list[tuple[int, int]]] = {}
        lengths: list[int] = []
        for index, document in enumerate(documents):
            frequencies = document if isinstance(document, Mapping) else Counter(document)
            length = 0
            for term, count in frequencies.items():
                if count <= 0:
                    continue
                length += count
                posting = self._postings.get(term)
                if posting is None:
                    self._postings[term] = [(index, count)]
                else:
                    posting.append((index, count))
            lengths.append(length)
        self.size = len(lengths)
        average = sum(lengths) / self.size if self.size else 0.0
        self.average_length = average
        self._norms = [
            k1 * (1.0 - b + b * (length / average if average else 0.0)) for length in lengths
        ]

    def document_frequency(self, term: str) -> int:
        """How many documents contain ``term``."""
        return len(self._postings.get(term, ()))

    def idf(self, term: str) -> float:
        """The inverse document frequency of ``term`` (0.0 when no document has it)."""
        df = self.document_frequency(term)
        if df == 0:
            return 0.0
        return math.log(1.0 + (self.size - df + 0.5) / (df + 0.5))

    def scores(self, terms: Iterable[str]) -> dict[int, float]:
        """BM25 score of every document that contains at least one of ``terms``.

        Repeated query terms count once.
        """
        result: dict[int, float] = {}
        k1_plus_1 = self.k1 + 1.0
        norms = self._norms
        for term in dict.fromkeys(terms):
            posting = self._postings.get(term)
            if not posting:
                continue
            idf = self.idf(term)
            for index, tf in posting:
                gain = idf * tf * k1_plus_1 / (tf + norms[index])
                result[index] = result.get(index, 0.0) + gain
        return result

    def top(self, terms: Iterable[str], k: int) -> list[tuple[int, float]]:
        """The ``k`` best ``(doc_index, score)`` pairs, best first; ties by lower index."""
        scored = self.scores(terms)
        return heapq.nsmallest(k, scored.items(), key=lambda item: (-item[1], item[0]))
