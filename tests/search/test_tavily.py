"""Tavily adapter against a loopback server speaking Tavily's /search wire format."""

from __future__ import annotations

from datetime import UTC, datetime

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


async def test_request_shape_and_mapping(search_once, api_key) -> None:
    hits, request = await search_once("tavily", RESULTS, "heat pumps", limit=5)
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
