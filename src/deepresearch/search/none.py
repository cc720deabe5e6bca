"""The ``none`` provider: no web search at all, so a run relies on the model's knowledge."""

from __future__ import annotations

from deepresearch.models import SearchHit


class NoSearch:
    """Finds nothing, instantly and without touching the network."""

    name = "none"
    supports_operators = False

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        return []
