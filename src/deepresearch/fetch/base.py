"""The fetch port: one method, injectable. Another issue hardens the real fetcher."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict


class FetchedPage(BaseModel):
    """Raw bytes of a page, after redirects, within the size cap."""

    model_config = ConfigDict(frozen=True)

    url: str
    final_url: str
    status: int
    content_type: str
    content: bytes


@runtime_checkable
class Fetcher(Protocol):
    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url``; raise FetchBlocked (policy) or FetchError (anything else)."""
        ...
