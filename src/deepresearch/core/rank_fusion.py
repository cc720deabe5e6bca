"""Reciprocal rank fusion of ranked lists of any keys: the hybrid library search's
formula (full-text ranking + embedding similarity, ``librarydb/vectors.py``).

A key's fused score is the sum, over the lists that hold it, of ``1 / (k + rank)`` with
``rank`` 1-based (Cormack, Clarke and Büttcher, SIGIR 2009): only ranks count, never the
lists' own scores, which do not compare (BM25 or ``ts_rank`` against cosine similarity).
``core.fusion`` is the same rule for web search results, keyed by normalized URL.

Pure and deterministic: ties go to the key with the better best rank, then to the
earlier list (the full-text one when it is given first), then to first appearance.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

DEFAULT_K = 60


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[K]], *, k: int = DEFAULT_K
) -> list[tuple[K, float]]:
    """Every key of ``rankings`` (each list best first, a key at most once a list) with
    its fused score, best first."""
    if k < 1:
        raise ValueError("k must be at least 1")
    score: dict[K, float] = {}
    best: dict[K, tuple[int, int]] = {}
    order: dict[K, int] = {}
    for list_index, ranking in enumerate(rankings):
        for position, key in enumerate(ranking):
            rank = position + 1
            score[key] = score.get(key, 0.0) + 1.0 / (k + rank)
            best[key] = min(best.get(key, (rank, list_index)), (rank, list_index))
            order.setdefault(key, len(order))
    ranked = sorted(score, key=lambda key: (-score[key], best[key], order[key]))
    return [(key, score[key]) for key in ranked]
