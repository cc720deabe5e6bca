"""The search port. Each adapter maps its provider's wire format to ``SearchHit`` and its
failures to our error tree (``ProviderUnavailable``, ``RateLimited``, ``ProviderAuthError``).
Vendor specifics stay inside the adapter."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from deepresearch.models import SearchHit


@runtime_checkable
class SearchProvider(Protocol):
    #: short name used in config, events and SearchHit.provider
    name: str
    #: True when the provider understands quotes, intitle:, site: and -site:
    supports_operators: bool

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """Return at most ``limit`` hits, best first. Raise ProviderError subclasses."""
        ...
