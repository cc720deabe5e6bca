"""Search providers behind one small interface: ``SearchProvider.search(query, limit=)``."""

from deepresearch.search.base import SearchProvider

__all__ = ["SearchProvider"]
