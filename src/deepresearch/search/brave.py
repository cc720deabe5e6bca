"""Brave Search, an independent web index, through its Web Search API.

Wire format (Brave Search API docs, confirmed): ``GET {base}/res/v1/web/search`` with
query parameters ``q``, ``count`` (1-20) and ``text_decorations``, and headers
``X-Subscription-Token: <key>`` and ``Accept: application/json``. Web hits are in
``web.results``, each with ``url``, ``title``, ``description`` (the snippet, with
``<strong>`` marks unless decorations are off), ``page_age`` (ISO-like date) and ``age``
(human text such as "March 4, 2024" or "3 days ago"). A refused key comes back as 401 or
as 422 with code ``SUBSCRIPTION_TOKEN_INVALID``. Brave understands quotes, ``site:`` and
``-site:``.
"""

from __future__ import annotations

import html
import re
from typing import Any, Unpack

import httpx
from pydantic import SecretStr

from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions, HttpSearchAdapter
from deepresearch.search.http import Target, items, parse_published, reveal, text_field

DEFAULT_BASE_URL = "https://api.search.brave.com"
MAX_RESULTS = 20
_TAG = re.compile(r"<[^>]+>")


class BraveSearch(HttpSearchAdapter):
    """Search the Brave web index."""

    name = "brave"
    supports_operators = True
    path = "/res/v1/web/search"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: SecretStr | str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        **options: Unpack[HttpOptions],
    ) -> None:
        target = Target(
            provider=self.name,
            label="Brave Search",
            auth_hint="check DEEPRESEARCH_BRAVE_API_KEY: the key may be wrong or its plan ended",
            auth_markers=("SUBSCRIPTION_TOKEN_INVALID",),
        )
        super().__init__(client, base_url, target, **options)
        self._key = api_key

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        data = await self._request_json(
            "GET",
            params={"q": query, "count": min(limit, MAX_RESULTS), "text_decorations": "false"},
            headers={"X-Subscription-Token": reveal(self._key), "Accept": "application/json"},
        )
        return self._ranked(map(_found, items(data, "web", "results")), query=query, limit=limit)


def _found(entry: dict[str, Any]) -> Found:
    return Found(
        url=text_field(entry, "url"),
        title=_plain(text_field(entry, "title")),
        snippet=_plain(text_field(entry, "description")),
        published=parse_published(entry.get("page_age")) or parse_published(entry.get("age")),
    )


def _plain(fragment: str) -> str:
    """Brave's text may carry ``<strong>`` marks and entities even with decorations off."""
    return html.unescape(_TAG.sub("", fragment)).strip()
