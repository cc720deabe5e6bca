"""SearXNG adapter against a loopback server speaking SearXNG's JSON search API."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from deepresearch.errors import ProviderUnavailable

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


async def test_maps_results_and_sends_json_query(search_once) -> None:
    hits, request = await search_once(
        "searxng", RESULTS, 'site:energy.example "solar panels"', limit=10
    )
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


async def test_base_url_with_a_path_prefix(provider_server, connect) -> None:
    provider_server.respond(200, {"results": []})
    await connect("searxng", base_url=provider_server.base_url + "/searx/").search("q", limit=3)
    assert provider_server.last.path == "/searx/search"


async def test_credentials_in_the_url_are_not_shown(dead_url, connect) -> None:
    with_user = dead_url.replace("http://", "http://admin:hunter2@")
    with pytest.raises(ProviderUnavailable) as caught:
        await connect("searxng", base_url=with_user).search("q", limit=3)
    assert "hunter2" not in str(caught.value)
