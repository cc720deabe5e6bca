"""Tavily adapter against a loopback server speaking Tavily's /search wire format."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from deepresearch.errors import ProviderAuthError, ProviderError
from deepresearch.search.http import RetryPolicy
from deepresearch.search.tavily import TavilySearch

RESULTS = {
    "query": "heat pumps",
    "answer": None,
    "images": [],
    "results": [
        {
            "title": "Heat pumps",
            "url": "https://energy.example/heat-pumps",
            "content": "A heat pump moves heat.",
            "score": 0.91,
            "raw_content": "# Heat pumps\n\nA heat pump moves heat from outside.",
            "published_date": "Mon, 04 Mar 2024 10:00:00 GMT",
        },
        {
            "title": "COP",
            "url": "https://wiki.example/COP",
            "content": "Coefficient of performance.",
            "score": 0.5,
            "raw_content": None,
        },
        {"title": "no url", "content": "skipped", "score": 0.4},
        {"title": "Third", "url": "https://third.example/", "content": "c", "score": 0.1},
    ],
    "response_time": 1.2,
}


def adapter(client: httpx.AsyncClient, base_url: str, key: str, retry: RetryPolicy) -> TavilySearch:
    return TavilySearch(client, key, base_url=base_url, timeout_s=2.0, retry=retry)


async def test_request_shape_and_mapping(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    hits = await adapter(client, provider_server.base_url, api_key, fast_retry).search(
        "heat pumps", limit=5
    )

    request = provider_server.last
    assert (request.method, request.path, request.query) == ("POST", "/search", {})
    assert request.headers["authorization"] == f"Bearer {api_key}"
    assert request.headers["content-type"].startswith("application/json")
    assert request.json() == {
        "query": "heat pumps",
        "max_results": 5,
        "search_depth": "basic",
        "include_raw_content": True,
    }
    assert [hit.url for hit in hits] == [
        "https://energy.example/heat-pumps",
        "https://wiki.example/COP",
        "https://third.example/",
    ]
    first = hits[0]
    assert (first.provider, first.rank, first.score) == ("tavily", 0, 0.91)
    assert first.snippet == "A heat pump moves heat."
    assert first.content == "# Heat pumps\n\nA heat pump moves heat from outside."
    assert first.published == datetime(2024, 3, 4, 10, 0, tzinfo=UTC)
    assert hits[1].content is None and hits[1].published is None


async def test_limit_caps_request_and_result(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    hits = await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=1)
    assert len(hits) == 1 and provider_server.last.json()["max_results"] == 1

    provider_server.respond(200, RESULTS)
    await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=50)
    assert provider_server.last.json()["max_results"] == 20


async def test_advanced_depth_without_raw_content(provider_server, client, api_key) -> None:
    provider_server.respond(200, {"results": []})
    tavily = TavilySearch(
        client,
        api_key,
        base_url=provider_server.base_url,
        search_depth="advanced",
        include_raw_content=False,
    )
    assert await tavily.search("q", limit=3) == []
    body = provider_server.last.json()
    assert body["search_depth"] == "advanced" and body["include_raw_content"] is False


async def test_bad_key_names_the_variable(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(401, {"detail": {"error": f"Unauthorized: bad key {api_key}"}})
    with pytest.raises(ProviderAuthError) as caught:
        await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=3)
    assert "DEEPRESEARCH_TAVILY_API_KEY" in caught.value.hint
    assert api_key not in str(caught.value)
    assert len(provider_server.requests) == 1


async def test_plan_limit_is_a_provider_error(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(432, {"detail": {"error": "This request exceeds your plan's limit."}})
    with pytest.raises(ProviderError) as caught:
        await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=3)
    assert not isinstance(caught.value, ProviderAuthError)
    assert "HTTP 432" in caught.value.message
    assert "plan" not in caught.value.message


def test_no_operators() -> None:
    assert TavilySearch.supports_operators is False
