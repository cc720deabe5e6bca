"""What the web search adapters share: one configured endpoint and the hit list.

``HttpSearchAdapter`` owns the client, the endpoint, the per-attempt timeout, the retry
policy, the circuit breaker and the ``Target`` that error messages name; it answers a
``limit`` below 1 without a request and sends every request through ``http.send``.
``ranked_hits`` turns what a provider listed into ``SearchHit``s: results without a URL
are dropped, the rest are ranked 0, 1, 2... in the provider's order and cut at ``limit``.
What a provider's wire format looks like (path, authentication, request fields, where
each hit field comes from) stays in its own module.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, TypedDict, Unpack

import httpx

from deepresearch.models import SearchHit
from deepresearch.resilience import CircuitBreaker
from deepresearch.search.http import (
    RequestParts,
    RetryPolicy,
    Target,
    json_object,
    send,
)


class HttpOptions(TypedDict, total=False):
    """The keyword options every web adapter's constructor accepts."""

    #: per-attempt timeout in seconds (default 8)
    timeout_s: float
    retry: RetryPolicy | None
    breaker: CircuitBreaker | None


@dataclass(frozen=True, slots=True)
class Found:
    """One result as a provider described it, before it is ranked and named."""

    url: str
    title: str = ""
    snippet: str = ""
    score: float | None = None
    published: datetime | None = None
    content: str | None = None


def ranked_hits(
    found: Iterable[Found], *, provider: str, query: str, limit: int
) -> list[SearchHit]:
    """The first ``limit`` results that have a URL, as hits ranked in the given order.

    ``found`` is consumed lazily, so nothing past the ``limit``-th hit is mapped.
    """
    hits: list[SearchHit] = []
    if limit <= 0:
        return hits
    for result in found:
        if not result.url:
            continue
        hits.append(
            SearchHit(
                url=result.url,
                title=result.title,
                snippet=result.snippet,
                provider=provider,
                query=query,
                rank=len(hits),
                score=result.score,
                published=result.published,
                content=result.content,
            )
        )
        if len(hits) >= limit:
            break
    return hits


class HttpSearchAdapter(ABC):
    """Base of the adapters that search a web API at ``{base_url}{path}``.

    A subclass sets ``name``, ``supports_operators`` and ``path``, builds its ``Target`` in
    its constructor and implements ``_search`` with ``_request`` or ``_request_json`` and
    ``_ranked``.
    """

    #: short name used in config, events and SearchHit.provider
    name: str
    #: True when the provider understands quotes, intitle:, site: and -site:
    supports_operators: bool
    #: appended to the base URL (after dropping its trailing slashes)
    path: ClassVar[str]

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        target: Target,
        *,
        timeout_s: float = 8.0,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self._client = client
        self._endpoint = base_url.rstrip("/") + self.path
        self._target = target
        self._timeout_s = timeout_s
        self._retry = retry or RetryPolicy()
        self._breaker = breaker or CircuitBreaker()

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """At most ``limit`` hits, best first; nothing is sent for a ``limit`` below 1."""
        if limit <= 0:
            return []
        return await self._search(query, limit)

    @abstractmethod
    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        """Ask the provider for ``limit`` (at least 1) hits: each adapter's own request."""

    async def _request(self, method: str, **parts: Unpack[RequestParts]) -> httpx.Response:
        """The first 2xx response from the endpoint, or the matching ``ProviderError``."""
        return await send(
            self._client,
            method,
            self._endpoint,
            target=self._target,
            timeout_s=self._timeout_s,
            retry=self._retry,
            breaker=self._breaker,
            **parts,
        )

    async def _request_json(
        self, method: str, *, bad_body_hint: str = "", **parts: Unpack[RequestParts]
    ) -> dict[str, Any]:
        """Like ``_request``, but the body as a JSON object (else ``ProviderError``)."""
        response = await self._request(method, **parts)
        return json_object(response, self._target, hint=bad_body_hint)

    def _ranked(self, found: Iterable[Found], *, query: str, limit: int) -> list[SearchHit]:
        return ranked_hits(found, provider=self.name, query=query, limit=limit)
