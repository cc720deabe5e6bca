"""Google Custom Search adapter against a loopback server speaking the CSE JSON API."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import httpx
import pytest

from deepresearch.errors import ProviderAuthError, ProviderUnavailable
from deepresearch.search.google_cse import GoogleSearch
from deepresearch.search.http import RetryPolicy

CSE_ID = "017576662512468239146:omuauf_lfve"
RESULTS = {
    "kind": "customsearch#search",
    "searchInformation": {"totalResults": "2"},
    "items": [
        {
            "kind": "customsearch#result",
            "title": "Geothermal energy",
            "link": "https://earth.example/geothermal",
            "displayLink": "earth.example",
            "snippet": "Heat from\nthe earth's   core.",
            "pagemap": {
                "metatags": [
                    {"og:type": "article", "article:published_time": "2022-05-06T07:08:09+02:00"}
                ]
            },
        },
        {"title": "no link", "snippet": "skipped"},
        {"title": "Plain", "link": "https://plain.example/", "snippet": "No dates here."},
    ],
}


def adapter(client: httpx.AsyncClient, base_url: str, key: str, retry: RetryPolicy) -> GoogleSearch:
    return GoogleSearch(client, key, CSE_ID, base_url=base_url, timeout_s=2.0, retry=retry)


async def test_request_shape_and_mapping(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    hits = await adapter(client, provider_server.base_url, api_key, fast_retry).search(
        'intitle:geothermal "heat"', limit=5
    )

    request = provider_server.last
    assert (request.method, request.path) == ("GET", "/customsearch/v1")
    assert request.query == {
        "key": [api_key],
        "cx": [CSE_ID],
        "q": ['intitle:geothermal "heat"'],
        "num": ["5"],
    }
    assert [hit.url for hit in hits] == [
        "https://earth.example/geothermal",
        "https://plain.example/",
    ]
    first = hits[0]
    assert (first.provider, first.rank, first.score, first.content) == ("google", 0, None, None)
    assert first.snippet == "Heat from the earth's core."
    assert first.published == datetime(2022, 5, 6, 7, 8, 9, tzinfo=timezone(timedelta(hours=2)))
    assert first.published.astimezone(UTC).hour == 5
    assert hits[1].published is None and hits[1].rank == 1


async def test_num_is_at_most_ten(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, RESULTS)
    google = adapter(client, provider_server.base_url, api_key, fast_retry)
    assert len(await google.search("q", limit=1)) == 1
    provider_server.respond(200, RESULTS)
    await google.search("q", limit=30)
    assert provider_server.last.param("num") == "10"


async def test_no_items_means_no_results(provider_server, client, api_key, fast_retry) -> None:
    provider_server.respond(200, {"kind": "customsearch#search", "searchInformation": {}})
    assert (
        await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=3)
        == []
    )


async def test_invalid_key_400_is_an_auth_error_without_the_key(
    provider_server, client, api_key, fast_retry
) -> None:
    provider_server.respond(
        400,
        {
            "error": {
                "code": 400,
                "message": "API key not valid. Please pass a valid API key.",
                "status": "INVALID_ARGUMENT",
                "details": [{"reason": "API_KEY_INVALID", "domain": "googleapis.com"}],
            }
        },
    )
    with pytest.raises(ProviderAuthError) as caught:
        await adapter(client, provider_server.base_url, api_key, fast_retry).search("q", limit=3)
    assert "DEEPRESEARCH_GOOGLE_API_KEY" in caught.value.hint
    assert api_key not in str(caught.value) and "not valid" not in str(caught.value)


async def test_refused_connection_does_not_show_the_keyed_url(
    dead_url, client, api_key, fast_retry
) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        await adapter(client, dead_url, api_key, fast_retry).search("q", limit=3)
    assert api_key not in str(caught.value)
    assert "Google Custom Search could not be reached" in str(caught.value)


def test_supports_operators() -> None:
    assert GoogleSearch.supports_operators is True
