"""SearXNG, a self-hosted metasearch engine, through its JSON search API.

Wire format (docs.searxng.org/dev/search_api, confirmed): ``GET {base}/search`` with query
parameters ``q``, ``format=json`` and ``pageno=1``; no authentication. The reply is an
object whose ``results`` list holds ``url``, ``title``, ``content`` (the snippet),
``engine``/``engines``, ``score`` and ``publishedDate`` (ISO 8601 or null), best first.
An instance that has not enabled the json format answers 403. SearXNG passes the query
to engines that understand quotes, ``site:`` and ``-site:``, so operators are supported.
"""

from __future__ import annotations

import httpx

from deepresearch.models import SearchHit
from deepresearch.search.http import (
    CircuitBreaker,
    RetryPolicy,
    Target,
    items,
    json_object,
    number_field,
    parse_published,
    safe_origin,
    send,
    text_field,
)

_JSON_HINT = "SearXNG answers 403 when its json output is off: add json to search.formats"


class SearxngSearch:
    """Search one SearXNG instance."""

    name = "searxng"
    supports_operators = True

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        *,
        timeout_s: float = 8.0,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self._client = client
        self._endpoint = base_url.strip().rstrip("/") + "/search"
        self._timeout_s = timeout_s
        self._retry = retry or RetryPolicy()
        self._breaker = breaker or CircuitBreaker()
        self._target = Target(
            provider=self.name,
            label=f"SearXNG at {safe_origin(base_url)}",
            auth_hint=f"{_JSON_HINT} in its settings.yml",
            unreachable_hint="is it running? check --searxng-url",
        )

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        if limit <= 0:
            return []
        response = await send(
            self._client,
            "GET",
            self._endpoint,
            target=self._target,
            timeout_s=self._timeout_s,
            retry=self._retry,
            breaker=self._breaker,
            params={"q": query, "format": "json", "pageno": 1},
            headers={"Accept": "application/json"},
        )
        data = json_object(
            response,
            self._target,
            hint="check that --searxng-url points at SearXNG with the json format enabled",
        )
        hits: list[SearchHit] = []
        for entry in items(data, "results"):
            url = text_field(entry, "url")
            if not url:
                continue
            hits.append(
                SearchHit(
                    url=url,
                    title=text_field(entry, "title"),
                    snippet=text_field(entry, "content"),
                    provider=self.name,
                    query=query,
                    rank=len(hits),
                    score=number_field(entry, "score"),
                    published=parse_published(entry.get("publishedDate")),
                )
            )
            if len(hits) >= limit:
                break
        return hits
