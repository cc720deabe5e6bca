"""Search providers behind one small interface: ``SearchProvider.search(query, limit=)``.

Nothing is imported here until it is used, so the provider names
(``deepresearch.search.registry``) load without the adapters, pydantic or httpx: the
CLI's ``--help`` reads them (issue 19, fast start)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deepresearch.search.base import SearchProvider

__all__ = ["SearchProvider"]


def __getattr__(name: str) -> Any:
    if name == "SearchProvider":
        from deepresearch.search.base import SearchProvider

        return SearchProvider
    raise AttributeError(f"module 'deepresearch.search' has no attribute {name!r}")
