"""The fetch port: one method, injectable; and what a policy-aware fetcher adds."""

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
    #: every URL requested for the page, in order: ``url``, then each redirect target (the
    #: last is ``final_url``); empty when the fetcher did not record them
    hops: tuple[str, ...] = ()
    #: True when the site's robots.txt was honoured for every hop
    robots_checked: bool = False


@runtime_checkable
class Fetcher(Protocol):
    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url``; raise FetchBlocked (policy) or FetchError (anything else)."""
        ...


@runtime_checkable
class PolicyFetcher(Fetcher, Protocol):
    """A fetcher that can say whether its policy allows a page fetched earlier."""

    async def admits(self, page: FetchedPage) -> bool:
        """True when this fetcher would fetch ``page`` now: every hop passes its policy
        (checked without connecting to the site). The page cache serves a stored page only
        to a fetcher that admits it."""
        ...


@runtime_checkable
class ImageFetcher(Protocol):
    """The port a report's figures are fetched through (``HttpFetcher.fetch_image``: the
    page fetcher's policy with the image rules)."""

    async def fetch_image(self, url: str, *, max_bytes: int) -> FetchedPage:
        """Fetch the image at ``url``, at most ``max_bytes``; raise FetchBlocked (policy,
        not an allowed image) or FetchError (anything else)."""
        ...
