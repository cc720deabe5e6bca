"""SearXNG adapter against a loopback server speaking SearXNG's JSON search API."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from deepresearch.errors import ProviderAuthError, ProviderError, ProviderUnavailable
from deepresearch.search.http import RetryPolicy
from deepresearch.search.searxng import SearxngSearch

RESULTS = {
    "query": "solar panels",
    "number_of_results": 0,
    "results": [
        {
            "url": "https://energy.example/solar",
            "title": "Solar  panels explained",
            "content": "How photovoltaic cells work.",
            "engine": "duckduckgo",
            "engines": ["duckduckgo", "bing"],
            "score": 2.5,
            "category": "general",
            "publishedDate": "2024-03-04T10:00:00",
        },
        {"title": "an infobox-like entry without a url", "content": "ignored"},
        {
            "url": "https://wiki.example/Photovoltaics",
            "title": "Photovoltaics",
            "content": "",
            "engine": "wikipedia",
            "score": 1,
            "publishedDate": None,
        },
        {"url": "https://third.example/", "title": "Third", "content": "c", "score": 0.5},
    ],
    "answers": [],
    "suggestions": [],
    "unresponsive_engines": [],
}


def adapter(client: httpx.AsyncClient, base_url: str, retry: RetryPolicy) -> SearxngSearch:
    return SearxngSearch(client, base_url, timeout_s=2.0, retry=retry)


async def test_maps_results_and_sends_json_query(provider_server, client, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    hits = await adapter(client, provider_server.base_url, fast_retry).search(
        'site:energy.example "solar panels"', limit=10
    )

    request = provider_server.last
    assert (request.method, request.path) == ("GET", "/search")
    assert request.param("q") == 'site:energy.example "solar panels"'
    assert request.param("format") == "json"
    assert request.param("pageno") == "1"
    assert [hit.url for hit in hits] == [
        "https://energy.example/solar",
        "https://wiki.example/Photovoltaics",
        "https://third.example/",
    ]
    first = hits[0]
    assert first.provider == "searxng"
    assert first.query == 'site:energy.example "solar panels"'
    assert first.snippet == "How photovoltaic cells work."
    assert first.score == 2.5
    assert first.published == datetime(2024, 3, 4, 10, 0, tzinfo=UTC)
    assert first.content is None
    assert [hit.rank for hit in hits] == [0, 1, 2]
    assert hits[1].published is None and hits[1].score == 1.0


async def test_limit_is_respected(provider_server, client, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    hits = await adapter(client, provider_server.base_url, fast_retry).search("q", limit=2)
    assert [hit.rank for hit in hits] == [0, 1]
    assert await adapter(client, provider_server.base_url, fast_retry).search("q", limit=0) == []


async def test_base_url_with_a_path_prefix(provider_server, client, fast_retry) -> None:
    provider_server.respond(200, {"results": []})
    await adapter(client, provider_server.base_url + "/searx/", fast_retry).search("q", limit=3)
    assert provider_server.last.path == "/searx/search"


def test_supports_operators() -> None:
    assert SearxngSearch.supports_operators is True
    assert SearxngSearch.name == "searxng"


async def test_refused_connection_names_the_url_and_the_flag(dead_url, client, fast_retry) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        await adapter(client, dead_url, fast_retry).search("q", limit=3)
    text = str(caught.value)
    assert f"SearXNG at {dead_url} could not be reached" in text
    assert "is it running?" in text and "--searxng-url" in text
    assert caught.value.provider == "searxng"


async def test_credentials_in_the_url_are_not_shown(dead_url, client, fast_retry) -> None:
    with_user = dead_url.replace("http://", "http://admin:hunter2@")
    with pytest.raises(ProviderUnavailable) as caught:
        await adapter(client, with_user, fast_retry).search("q", limit=3)
    assert "hunter2" not in str(caught.value)


async def test_json_format_disabled_is_explained(provider_server, client, fast_retry) -> None:
    provider_server.respond(403, "<html>Forbidden</html>")
    with pytest.raises(ProviderAuthError) as caught:
        await adapter(client, provider_server.base_url, fast_retry).search("q", limit=3)
    assert "search.formats" in caught.value.hint
    assert "Forbidden" not in str(caught.value)


async def test_html_instead_of_json(provider_server, client, fast_retry) -> None:
    provider_server.respond(200, "<html><body>results</body></html>")
    with pytest.raises(ProviderError) as caught:
        await adapter(client, provider_server.base_url, fast_retry).search("q", limit=3)
    assert "not valid JSON" in caught.value.message
    assert "--searxng-url" in caught.value.hint
