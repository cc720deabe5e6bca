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

import httpx
from pydantic import SecretStr

from deepresearch.models import SearchHit
from deepresearch.search.http import (
    CircuitBreaker,
    RetryPolicy,
    Target,
    items,
    json_object,
    parse_published,
    reveal,
    send,
    text_field,
)

DEFAULT_BASE_URL = "https://api.search.brave.com"
MAX_RESULTS = 20
_TAG = re.compile(r"<[^>]+>")


class BraveSearch:
    """Search the Brave web index."""

    name = "brave"
    supports_operators = True

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: SecretStr | str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout_s: float = 8.0,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self._client = client
        self._key = api_key
        self._endpoint = base_url.rstrip("/") + "/res/v1/web/search"
        self._timeout_s = timeout_s
        self._retry = retry or RetryPolicy()
        self._breaker = breaker or CircuitBreaker()
        self._target = Target(
            provider=self.name,
            label="Brave Search",
            auth_hint="check DEEPRESEARCH_BRAVE_API_KEY: the key may be wrong or its plan ended",
            auth_markers=("SUBSCRIPTION_TOKEN_INVALID",),
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
            params={"q": query, "count": min(limit, MAX_RESULTS), "text_decorations": "false"},
            headers={"X-Subscription-Token": reveal(self._key), "Accept": "application/json"},
        )
        hits: list[SearchHit] = []
        for entry in items(json_object(response, self._target), "web", "results"):
            url = text_field(entry, "url")
            if not url:
                continue
            published = parse_published(entry.get("page_age")) or parse_published(entry.get("age"))
            hits.append(
                SearchHit(
                    url=url,
                    title=_plain(text_field(entry, "title")),
                    snippet=_plain(text_field(entry, "description")),
                    provider=self.name,
                    query=query,
                    rank=len(hits),
                    published=published,
                )
            )
            if len(hits) >= limit:
                break
        return hits


def _plain(fragment: str) -> str:
    """Brave's text may carry ``<strong>`` marks and entities even with decorations off."""
    return html.unescape(_TAG.sub("", fragment)).strip()
