"""Exa adapter against a loopback server speaking Exa's /search wire format."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from deepresearch.errors import ProviderAuthError
from deepresearch.search.exa import SNIPPET_CHARS, ExaSearch
from deepresearch.search.http import RetryPolicy

LONG_TEXT = "Tidal energy " + "is predictable and " * 60 + "end."
RESULTS = {
    "requestId": "abc",
    "resolvedSearchType": "neural",
    "results": [
        {
            "id": "https://ocean.example/tidal",
            "url": "https://ocean.example/tidal",
            "title": "Tidal power",
            "publishedDate": "2023-11-20T00:00:00.000Z",
            "author": "A. Writer",
            "score": 0.42,
            "text": LONG_TEXT,
        },
        {
            "id": "x",
            "url": "https://ocean.example/waves",
            "title": None,
            "publishedDate": None,
            "text": "Wave energy\n\n  converters.",
            "highlights": ["Waves carry  energy."],
        },
        {"id": "y", "title": "no url", "text": "skipped"},
    ],
}


def adapter(client: httpx.AsyncClient, base_url: str, key: str, retry: RetryPolicy) -> ExaSearch:
    return ExaSearch(client, key, base_url=base_url, timeout_s=2.0, retry=retry)


async def test_request_shape_and_mapping(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    hits = await adapter(client, provider_server.base_url, api_key, fast_retry).search(
        "tidal energy", limit=4
    )

    request = provider_server.last
    assert (request.method, request.path, request.query) == ("POST", "/search", {})
    assert request.headers["x-api-key"] == api_key
    assert "authorization" not in request.headers
    assert request.json() == {
        "query": "tidal energy",
        "type": "auto",
        "numResults": 4,
        "contents": {"text": {"maxCharacters": 10_000}},
    }
    assert [hit.url for hit in hits] == [
        "https://ocean.example/tidal",
        "https://ocean.example/waves",
    ]
    first, second = hits
    assert (first.provider, first.rank, first.score) == ("exa", 0, 0.42)
    assert first.content == LONG_TEXT
    assert first.published == datetime(2023, 11, 20, tzinfo=UTC)
    assert first.snippet.startswith("Tidal energy is predictable")
    assert first.snippet.endswith("…") and len(first.snippet) <= SNIPPET_CHARS + 1
    assert second.title == "" and second.score is None and second.published is None
    assert second.snippet == "Waves carry energy."
    assert second.content == "Wave energy\n\n  converters."


async def test_limit(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    hits = await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=1)
    assert len(hits) == 1 and provider_server.last.json()["numResults"] == 1


async def test_bad_key(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(401, {"error": f"Invalid API key {api_key}"})
    with pytest.raises(ProviderAuthError) as caught:
        await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=3)
    assert "DEEPRESEARCH_EXA_API_KEY" in caught.value.hint
    assert api_key not in str(caught.value)


def test_no_operators() -> None:
    assert ExaSearch.supports_operators is False
