"""A search provider that breaks on purpose: it wraps a real one and makes the first
``broken`` searches it is asked for raise an unexpected error (one outside deepresearch's
error tree, as a bug in an adapter would) or stall for ``stall_s`` seconds, then answer as
the wrapped provider. For tests and benchmarks of a research unit that fails or runs past
its time limit (seed 004: the unit fails alone, the run goes on)."""

from __future__ import annotations

import asyncio

from deepresearch.models import SearchHit
from deepresearch.search.base import SearchProvider


class FaultySearch:
    """``inner``, except that its first ``broken`` searches fail (``stall_s`` None: raise
    ``RuntimeError``) or stall for ``stall_s`` seconds first. ``broke`` lists those
    searches' queries."""

    def __init__(
        self, inner: SearchProvider, *, broken: int = 1, stall_s: float | None = None
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.supports_operators = inner.supports_operators
        self.broken = broken
        self.stall_s = stall_s
        self.broke: list[str] = []

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        if len(self.broke) < self.broken:
            self.broke.append(query)
            if self.stall_s is None:
                raise RuntimeError(f"the search adapter broke on {query!r}")
            await asyncio.sleep(self.stall_s)
        return await self.inner.search(query, limit=limit)
