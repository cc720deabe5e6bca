"""Brave adapter against a loopback server speaking Brave's Web Search API."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from deepresearch.errors import ProviderAuthError, ProviderError
from deepresearch.search.brave import BraveSearch
from deepresearch.search.http import RetryPolicy

RESULTS = {
    "type": "search",
    "query": {"original": "wind turbines"},
    "web": {
        "type": "search",
        "results": [
            {
                "title": "How <strong>wind turbines</strong> work",
                "url": "https://energy.example/wind",
                "description": "Blades turn a <strong>rotor</strong> &amp; a generator.",
                "page_age": "2024-02-01T08:30:00",
                "age": "February 1, 2024",
                "meta_url": {"hostname": "energy.example"},
            },
            {
                "title": "Offshore wind",
                "url": "https://sea.example/offshore",
                "description": "Turbines at sea.",
                "age": "March 4, 2024",
            },
            {"title": "Recent", "url": "https://news.example/now", "age": "3 days ago"},
        ],
    },
}


def adapter(client: httpx.AsyncClient, base_url: str, key: str, retry: RetryPolicy) -> BraveSearch:
    return BraveSearch(client, key, base_url=base_url, timeout_s=2.0, retry=retry)


async def test_request_shape_and_mapping(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    hits = await adapter(client, provider_server.base_url, api_key, fast_retry).search(
        "wind turbines -site:ads.example", limit=5
    )

    request = provider_server.last
    assert (request.method, request.path) == ("GET", "/res/v1/web/search")
    assert request.query == {
        "q": ["wind turbines -site:ads.example"],
        "count": ["5"],
        "text_decorations": ["false"],
    }
    assert request.headers["x-subscription-token"] == api_key
    assert request.headers["accept"] == "application/json"
    assert [hit.url for hit in hits] == [
        "https://energy.example/wind",
        "https://sea.example/offshore",
        "https://news.example/now",
    ]
    first = hits[0]
    assert first.title == "How wind turbines work"
    assert first.snippet == "Blades turn a rotor & a generator."
    assert first.published == datetime(2024, 2, 1, 8, 30, tzinfo=UTC)
    assert (first.provider, first.rank, first.score, first.content) == ("brave", 0, None, None)
    assert hits[1].published == datetime(2024, 3, 4, tzinfo=UTC)
    assert hits[2].published is None and hits[2].snippet == ""


async def test_limit(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    brave = adapter(client, provider_server.base_url, api_key, fast_retry)
    assert len(await brave.search("q", limit=2)) == 2
    provider_server.respond(200, RESULTS)
    await brave.search("q", limit=99)
    assert provider_server.last.param("count") == "20"


async def test_no_web_section_means_no_hits(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, {"type": "search", "query": {"original": "q"}})
    assert (
        await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=3)
        == []
    )


async def test_invalid_token_422_is_an_auth_error(
    provider_server, client, api_key, fast_retry
) -> None:
    provider_server.respond(
        422,
        {"type": "ErrorResponse", "error": {"status": 422, "code": "SUBSCRIPTION_TOKEN_INVALID"}},
    )
    with pytest.raises(ProviderAuthError) as caught:
        await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=3)
    assert "DEEPRESEARCH_BRAVE_API_KEY" in caught.value.hint
    assert "SUBSCRIPTION_TOKEN_INVALID" not in str(caught.value)


async def test_validation_422_is_not_an_auth_error(
    provider_server, client, api_key, fast_retry
) -> None:
    provider_server.respond(422, {"type": "ErrorResponse", "error": {"code": "VALIDATION"}})
    with pytest.raises(ProviderError) as caught:
        await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=3)
    assert type(caught.value) is ProviderError


def test_supports_operators() -> None:
    assert BraveSearch.supports_operators is True
