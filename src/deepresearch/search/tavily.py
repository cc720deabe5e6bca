"""Tavily, a search API built for LLM agents, which can return each page's full text.

Wire format (Tavily API reference and its SDKs, confirmed): ``POST {base}/search`` with
``Authorization: Bearer <key>`` and a JSON body ``{query, max_results (0-20),
search_depth ("basic" | "advanced"), include_raw_content}``. The reply's ``results`` list
holds ``url``, ``title``, ``content`` (a query-focused extract), ``score`` (0-1),
``raw_content`` (the page text when asked for, else null) and ``published_date`` (news
topic only). Errors: 401 bad key, 429 rate limit, 432/433 plan or spending limit reached.
Tavily ignores search operators, so the planner should not rely on them.
"""

from __future__ import annotations

from typing import Literal

import httpx
from pydantic import SecretStr

from deepresearch.models import SearchHit
from deepresearch.search.http import (
    CircuitBreaker,
    RetryPolicy,
    Target,
    items,
    json_object,
    number_field,
    parse_published,
    reveal,
    send,
    text_field,
)

DEFAULT_BASE_URL = "https://api.tavily.com"
MAX_RESULTS = 20


class TavilySearch:
    """Search with Tavily; hits carry ``content`` when Tavily returned the raw page text."""

    name = "tavily"
    supports_operators = False

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: SecretStr | str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout_s: float = 8.0,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
        search_depth: Literal["basic", "advanced"] = "basic",
        include_raw_content: bool = True,
    ) -> None:
        self._client = client
        self._key = api_key
        self._endpoint = base_url.rstrip("/") + "/search"
        self._timeout_s = timeout_s
        self._retry = retry or RetryPolicy()
        self._breaker = breaker or CircuitBreaker()
        self._depth = search_depth
        self._raw = include_raw_content
        self._target = Target(
            provider=self.name,
            label="Tavily",
            auth_hint="check DEEPRESEARCH_TAVILY_API_KEY: the key may be wrong or expired",
        )

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        if limit <= 0:
            return []
        response = await send(
            self._client,
            "POST",
            self._endpoint,
            target=self._target,
            timeout_s=self._timeout_s,
            retry=self._retry,
            breaker=self._breaker,
            headers={"Authorization": f"Bearer {reveal(self._key)}"},
            json_body={
                "query": query,
                "max_results": min(limit, MAX_RESULTS),
                "search_depth": self._depth,
                "include_raw_content": self._raw,
            },
        )
        hits: list[SearchHit] = []
        for entry in items(json_object(response, self._target), "results"):
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
                    published=parse_published(entry.get("published_date")),
                    content=text_field(entry, "raw_content") or None,
                )
            )
            if len(hits) >= limit:
                break
        return hits
