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

from typing import Any, Literal, Unpack

import httpx
from pydantic import SecretStr

from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions, HttpSearchAdapter
from deepresearch.search.http import (
    Target,
    items,
    number_field,
    parse_published,
    reveal,
    text_field,
)

DEFAULT_BASE_URL = "https://api.tavily.com"
MAX_RESULTS = 20


class TavilySearch(HttpSearchAdapter):
    """Search with Tavily; hits carry ``content`` when Tavily returned the raw page text."""

    name = "tavily"
    supports_operators = False
    path = "/search"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: SecretStr | str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        search_depth: Literal["basic", "advanced"] = "basic",
        include_raw_content: bool = True,
        **options: Unpack[HttpOptions],
    ) -> None:
        target = Target(
            provider=self.name,
            label="Tavily",
            auth_hint="check DEEPRESEARCH_TAVILY_API_KEY: the key may be wrong or expired",
        )
        super().__init__(client, base_url, target, **options)
        self._key = api_key
        self._depth = search_depth
        self._raw = include_raw_content

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        data = await self._request_json(
            "POST",
            headers={"Authorization": f"Bearer {reveal(self._key)}"},
            json_body={
                "query": query,
                "max_results": min(limit, MAX_RESULTS),
                "search_depth": self._depth,
                "include_raw_content": self._raw,
            },
        )
        return self._ranked(map(_found, items(data, "results")), query=query, limit=limit)


def _found(entry: dict[str, Any]) -> Found:
    return Found(
        url=text_field(entry, "url"),
        title=text_field(entry, "title"),
        snippet=text_field(entry, "content"),
        score=number_field(entry, "score"),
        published=parse_published(entry.get("published_date")),
        content=text_field(entry, "raw_content") or None,
    )
