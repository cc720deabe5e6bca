"""Exa, a neural web search API that returns the text of each result.

Wire format (Exa API reference and SDKs, confirmed): ``POST {base}/search`` with header
``x-api-key: <key>`` and a JSON body ``{query, type: "auto", numResults, contents: {text:
{maxCharacters}}}``. The reply's ``results`` list holds ``url``, ``title`` (may be null),
``text`` (the page text, because ``contents.text`` was asked for), ``publishedDate`` (ISO
8601 or null), ``author``, ``score`` (not always present) and, when requested,
``highlights``. Exa has no snippet of its own, so the snippet is the first highlight or
the opening of the text. Exa ignores search operators.
"""

from __future__ import annotations

import re
from typing import Any, Unpack

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

DEFAULT_BASE_URL = "https://api.exa.ai"
MAX_RESULTS = 100
SNIPPET_CHARS = 300
_SPACE = re.compile(r"\s+")


class ExaSearch(HttpSearchAdapter):
    """Search with Exa; hits carry the page text as ``content``."""

    name = "exa"
    supports_operators = False
    path = "/search"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: SecretStr | str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        max_text_chars: int = 10_000,
        **options: Unpack[HttpOptions],
    ) -> None:
        target = Target(
            provider=self.name,
            label="Exa",
            auth_hint="check DEEPRESEARCH_EXA_API_KEY: the key may be wrong or out of credit",
        )
        super().__init__(client, base_url, target, **options)
        self._key = api_key
        self._max_text_chars = max_text_chars

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        data = await self._request_json(
            "POST",
            headers={"x-api-key": reveal(self._key)},
            json_body={
                "query": query,
                "type": "auto",
                "numResults": min(limit, MAX_RESULTS),
                "contents": {"text": {"maxCharacters": self._max_text_chars}},
            },
        )
        return self._ranked(map(_found, items(data, "results")), query=query, limit=limit)


def _found(entry: dict[str, Any]) -> Found:
    text = text_field(entry, "text")
    return Found(
        url=text_field(entry, "url"),
        title=text_field(entry, "title"),
        snippet=_snippet(entry.get("highlights"), text),
        score=number_field(entry, "score"),
        published=parse_published(entry.get("publishedDate")),
        content=text or None,
    )


def _snippet(highlights: object, text: str) -> str:
    if isinstance(highlights, list):
        for highlight in highlights:
            if isinstance(highlight, str) and highlight.strip():
                return _SPACE.sub(" ", highlight).strip()
    opening = _SPACE.sub(" ", text[: SNIPPET_CHARS * 2]).strip()
    if len(opening) <= SNIPPET_CHARS:
        return opening
    cut = opening[:SNIPPET_CHARS].rsplit(" ", 1)[0]
    return cut + "…"
