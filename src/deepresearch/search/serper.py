"""Serper, Google's results through a simple paid API (serper.dev).

Wire format (serper.dev's API playground and its SDK examples, confirmed): ``POST
{base}/search`` with headers ``X-API-KEY: <key>`` and ``Content-Type: application/json``
and the body ``{"q": <query>, "num": <count>}``. Web hits are in ``organic``, each with
``title``, ``link``, ``snippet``, ``position`` (1-based) and, for dated pages, ``date``
("Mar 4, 2024" or "3 days ago"); ``knowledgeGraph``, ``peopleAlsoAsk`` and
``relatedSearches`` are ignored. A refused key gets 401 or 403 (``{"message":
"Unauthorized.", "statusCode": 403}``), an exhausted account 400 (``Not enough credits``),
the rate limit 429. Google understands quotes, ``site:`` and ``-site:``.
"""

from __future__ import annotations

from typing import Any, Unpack

import httpx
from pydantic import SecretStr

from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions, HttpSearchAdapter
from deepresearch.search.http import Target, items, parse_published, reveal, text_field

DEFAULT_BASE_URL = "https://google.serper.dev"
MAX_RESULTS = 100


class SerperSearch(HttpSearchAdapter):
    """Search Google through Serper."""

    name = "serper"
    supports_operators = True
    path = "/search"

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
            label="Serper",
            auth_hint="check DEEPRESEARCH_SERPER_API_KEY: the key may be wrong or disabled",
        )
        super().__init__(client, base_url, target, **options)
        self._key = api_key

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        data = await self._request_json(
            "POST",
            headers={"X-API-KEY": reveal(self._key)},
            json_body={"q": query, "num": min(limit, MAX_RESULTS)},
        )
        return self._ranked(map(_found, items(data, "organic")), query=query, limit=limit)


def _found(entry: dict[str, Any]) -> Found:
    return Found(
        url=text_field(entry, "link"),
        title=text_field(entry, "title"),
        snippet=text_field(entry, "snippet"),
        published=parse_published(entry.get("date")),
    )
