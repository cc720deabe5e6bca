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
from typing import Any, Unpack

import httpx
from pydantic import SecretStr

from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions, HttpSearchAdapter
from deepresearch.search.http import Target, items, parse_published, reveal, text_field

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


class GoogleSearch(HttpSearchAdapter):
    """Search one Programmable Search Engine (``cx``) with the Custom Search JSON API."""

    name = "google"
    supports_operators = True
    path = "/customsearch/v1"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: SecretStr | str,
        cse_id: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        **options: Unpack[HttpOptions],
    ) -> None:
        target = Target(
            provider=self.name,
            label="Google Custom Search",
            auth_hint=(
                "check DEEPRESEARCH_GOOGLE_API_KEY and that the Custom Search JSON API is "
                "enabled for its project"
            ),
            auth_markers=("API_KEY_INVALID", "keyInvalid"),
        )
        super().__init__(client, base_url, target, **options)
        self._key = api_key
        self._cse_id = cse_id

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        data = await self._request_json(
            "GET",
            params={
                "key": reveal(self._key),
                "cx": self._cse_id,
                "q": query,
                "num": min(limit, MAX_RESULTS),
            },
            headers={"Accept": "application/json"},
        )
        return self._ranked(map(_found, items(data, "items")), query=query, limit=limit)


def _found(entry: dict[str, Any]) -> Found:
    return Found(
        url=text_field(entry, "link"),
        title=text_field(entry, "title"),
        snippet=" ".join(text_field(entry, "snippet").split()),
        published=_published(entry),
    )


def _published(entry: dict[str, Any]) -> datetime | None:
    for tags in items(entry, "pagemap", "metatags"):
        for key in _DATE_TAGS:
            found = parse_published(tags.get(key))
            if found is not None:
                return found
    return None
