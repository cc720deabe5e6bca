"""A search provider that answers every query with the same fixed hits: for tests that
need a particular mix of results (a dead link, a hostile page) without a search engine."""

from __future__ import annotations

from collections.abc import Sequence

from deepresearch.models import SearchHit


class StaticSearch:
    name = "static"
    supports_operators = False

    def __init__(self, hits: Sequence[SearchHit]) -> None:
        self.hits = list(hits)
        self.queries: list[str] = []

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        self.queries.append(query)
        return [hit.model_copy(update={"query": query}) for hit in self.hits[:limit]]
