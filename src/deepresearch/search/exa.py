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

DEFAULT_BASE_URL = "https://api.exa.ai"
MAX_RESULTS = 100
SNIPPET_CHARS = 300
_SPACE = re.compile(r"\s+")


class ExaSearch:
    """Search with Exa; hits carry the page text as ``content``."""

    name = "exa"
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
        max_text_chars: int = 10_000,
    ) -> None:
        self._client = client
        self._key = api_key
        self._endpoint = base_url.rstrip("/") + "/search"
        self._timeout_s = timeout_s
        self._retry = retry or RetryPolicy()
        self._breaker = breaker or CircuitBreaker()
        self._max_text_chars = max_text_chars
        self._target = Target(
            provider=self.name,
            label="Exa",
            auth_hint="check DEEPRESEARCH_EXA_API_KEY: the key may be wrong or out of credit",
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
            headers={"x-api-key": reveal(self._key)},
            json_body={
                "query": query,
                "type": "auto",
                "numResults": min(limit, MAX_RESULTS),
                "contents": {"text": {"maxCharacters": self._max_text_chars}},
            },
        )
        hits: list[SearchHit] = []
        for entry in items(json_object(response, self._target), "results"):
            url = text_field(entry, "url")
            if not url:
                continue
            text = text_field(entry, "text")
            hits.append(
                SearchHit(
                    url=url,
                    title=text_field(entry, "title"),
                    snippet=_snippet(entry.get("highlights"), text),
                    provider=self.name,
                    query=query,
                    rank=len(hits),
                    score=number_field(entry, "score"),
                    published=parse_published(entry.get("publishedDate")),
                    content=text or None,
                )
            )
            if len(hits) >= limit:
                break
        return hits


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
