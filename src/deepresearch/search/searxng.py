"""SearXNG, a self-hosted metasearch engine, through its JSON search API.

Wire format (docs.searxng.org/dev/search_api, confirmed): ``GET {base}/search`` with query
parameters ``q``, ``format=json`` and ``pageno=1``; no authentication. The reply is an
object whose ``results`` list holds ``url``, ``title``, ``content`` (the snippet),
``engine``/``engines``, ``score`` and ``publishedDate`` (ISO 8601 or null), best first.
An instance that has not enabled the json format answers 403. SearXNG passes the query
to engines that understand quotes, ``site:`` and ``-site:``, so operators are supported.
"""

from __future__ import annotations

from typing import Any, Unpack

import httpx

from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions, HttpSearchAdapter
from deepresearch.search.http import (
    Target,
    items,
    number_field,
    parse_published,
    safe_origin,
    text_field,
)

_JSON_HINT = "SearXNG answers 403 when its json output is off: add json to search.formats"


class SearxngSearch(HttpSearchAdapter):
    """Search one SearXNG instance."""

    name = "searxng"
    supports_operators = True
    path = "/search"

    def __init__(
        self, client: httpx.AsyncClient, base_url: str, **options: Unpack[HttpOptions]
    ) -> None:
        target = Target(
            provider=self.name,
            label=f"SearXNG at {safe_origin(base_url)}",
            auth_hint=f"{_JSON_HINT} in its settings.yml",
            unreachable_hint="is it running? check --searxng-url",
        )
        super().__init__(client, base_url.strip(), target, **options)

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        data = await self._request_json(
            "GET",
            params={"q": query, "format": "json", "pageno": 1},
            headers={"Accept": "application/json"},
            bad_body_hint="check that --searxng-url points at SearXNG with the json format enabled",
        )
        return self._ranked(map(_found, items(data, "results")), query=query, limit=limit)


def _found(entry: dict[str, Any]) -> Found:
    return Found(
        url=text_field(entry, "url"),
        title=text_field(entry, "title"),
        snippet=text_field(entry, "content"),
        score=number_field(entry, "score"),
        published=parse_published(entry.get("publishedDate")),
    )
