"""Ranking search hits for a sub-question before anything is fetched. Pure.

The score blends how much of the sub-question the title and snippet cover (lexical
overlap), the provider's own ordering, and the provider's score when it gives one. The
multi-dimensional source scoring of the sources issue builds on top of this."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from deepresearch.core.lexical import overlap
from deepresearch.models import SearchHit

W_OVERLAP = 0.6
W_POSITION = 0.3
W_PROVIDER = 0.1


class RankedHit(BaseModel):
    hit: SearchHit
    score: float
    overlap: float
    position: float


def rank_hits(hits: Sequence[SearchHit], query: str) -> list[RankedHit]:
    """Hits scored in [0, 1] against ``query``, best first; ties keep the input order."""
    ranked = []
    for hit in hits:
        lexical = overlap(query, f"{hit.title} {hit.snippet}")
        position = 1.0 / (1.0 + hit.rank)
        provider = min(max(hit.score, 0.0), 1.0) if hit.score is not None else position
        score = W_OVERLAP * lexical + W_POSITION * position + W_PROVIDER * provider
        ranked.append(RankedHit(hit=hit, score=round(score, 6), overlap=lexical, position=position))
    order = sorted(range(len(ranked)), key=lambda i: (-ranked[i].score, i))
    return [ranked[i] for i in order]


def choose(hits: Sequence[SearchHit], query: str, *, limit: int) -> list[SearchHit]:
    """The hits a sub-question reads: the best ``limit`` by ``rank_hits``."""
    return [item.hit for item in rank_hits(hits, query)[:limit]]
