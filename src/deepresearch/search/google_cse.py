"""Google Programmable Search through the Custom Search JSON API.

Wire format (developers.google.com/custom-search/v1, confirmed): ``GET
{base}/customsearch/v1`` with query parameters ``key`` (the API key: Google takes it only
in the URL, so no message here ever shows a URL), ``cx`` (the search engine id), ``q`` and
``num`` (1-10). Hits are in ``items``, each with ``link``, ``title``, ``snippet`` and
``pagemap.metatags`` (a list of objects, where ``article:published_time`` and similar
keys date the page); no ``items`` means no results. A bad key comes back as 400 with
reason ``API_KEY_INVALID`` / ``keyInvalid``, a disabled API as 403, a spent quota as 429.
Google understands quotes, ``intitle:``, ``site:`` and ``-site:``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

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

DEFAULT_BASE_URL = "https://www.googleapis.com"
MAX_RESULTS = 10
_DATE_TAGS = (
    "article:published_time",
    "datepublished",
    "og:published_time",
    "dc.date",
    "date",
    "pubdate",
    "article:modified_time",
)


class GoogleSearch:
    """Search one Programmable Search Engine (``cx``) with the Custom Search JSON API."""

    name = "google"
    supports_operators = True

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: SecretStr | str,
        cse_id: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout_s: float = 8.0,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self._client = client
        self._key = api_key
        self._cse_id = cse_id
        self._endpoint = base_url.rstrip("/") + "/customsearch/v1"
        self._timeout_s = timeout_s
        self._retry = retry or RetryPolicy()
        self._breaker = breaker or CircuitBreaker()
        self._target = Target(
            provider=self.name,
            label="Google Custom Search",
            auth_hint=(
                "check DEEPRESEARCH_GOOGLE_API_KEY and that the Custom Search JSON API is "
                "enabled for its project"
            ),
            auth_markers=("API_KEY_INVALID", "keyInvalid"),
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
            params={
                "key": reveal(self._key),
                "cx": self._cse_id,
                "q": query,
                "num": min(limit, MAX_RESULTS),
            },
            headers={"Accept": "application/json"},
        )
        hits: list[SearchHit] = []
        for entry in items(json_object(response, self._target), "items"):
            url = text_field(entry, "link")
            if not url:
                continue
            hits.append(
                SearchHit(
                    url=url,
                    title=text_field(entry, "title"),
                    snippet=" ".join(text_field(entry, "snippet").split()),
                    provider=self.name,
                    query=query,
                    rank=len(hits),
                    published=_published(entry),
                )
            )
            if len(hits) >= limit:
                break
        return hits


def _published(entry: dict[str, Any]) -> datetime | None:
    for tags in items(entry, "pagemap", "metatags"):
        for key in _DATE_TAGS:
            found = parse_published(tags.get(key))
            if found is not None:
                return found
    return None
