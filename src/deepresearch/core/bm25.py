"""BM25 Okapi over an inverted index: the one BM25 in deepresearch. Pure.

Documents go in as token sequences or term-frequency maps (the caller tokenizes and
weights fields, a title counted twice say); a query's terms come back as
``{doc_index: score}`` for the documents that contain any of them. The IDF is the
always-positive variant ``log(1 + (N - df + 0.5) / (df + 0.5))`` so a term found in most
documents still counts a little instead of going negative; a caller may pass IDF weights
taken over another collection (``core.passages`` weighs passage terms across sources).

Used by passage ranking (``core.lexical.BM25``, ``core.passages``) and the offline web's
search engine (``testing.searchindex``). The local corpus search ranks with SQLite FTS5's
own ``bm25()`` inside its query (``search.local``).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

K1 = 1.5
B = 0.75


class BM25Okapi:
    """An Okapi BM25 index over a fixed list of documents.

    Each document is either a token sequence or a term-frequency mapping; the document
    length is the sum of its term frequencies. ``idf``, when given, replaces the index's
    own term weights (a term missing from it weighs 0).
    """

    def __init__(
        self,
        documents: Iterable[Sequence[str] | Mapping[str, int]],
        *,
        k1: float = K1,
        b: float = B,
        idf: Mapping[str, float] | None = None,
    ) -> None:
        self.k1 = k1
        self.b = b
        self._idf = idf
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
        if self._idf is not None:
            return self._idf.get(term, 0.0)
        df = self.document_frequency(term)
        if df == 0:
            return 0.0
        return math.log(1.0 + (self.size - df + 0.5) / (df + 0.5))

    def idf_table(self) -> dict[str, float]:
        """``idf(term)`` for every term of the index, to weigh another index's terms."""
        return {term: self.idf(term) for term in self._postings}

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
