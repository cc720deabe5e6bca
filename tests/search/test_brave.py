"""Brave adapter against a loopback server speaking Brave's Web Search API."""

from __future__ import annotations

from datetime import UTC, datetime

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


async def test_request_shape_and_mapping(search_once, api_key) -> None:
    hits, request = await search_once("brave", RESULTS, "wind turbines -site:ads.example", limit=5)
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
