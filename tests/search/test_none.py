"""The ``none`` provider finds nothing and needs nothing."""

from __future__ import annotations

from deepresearch.search.base import SearchProvider
from deepresearch.search.none import NoSearch


async def test_returns_nothing() -> None:
    provider = NoSearch()
    assert isinstance(provider, SearchProvider)
    assert (provider.name, provider.supports_operators) == ("none", False)
    assert await provider.search("anything", limit=10) == []
