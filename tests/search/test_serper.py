"""Serper adapter against a loopback server speaking serper.dev's search API."""

from __future__ import annotations

from datetime import UTC, datetime

RESULTS = {
    "searchParameters": {"q": "wind turbines", "type": "search", "engine": "google"},
    "knowledgeGraph": {"title": "Wind turbine", "description": "Not a result"},
    "organic": [
        {
            "title": "How wind turbines work",
            "link": "https://energy.example/wind",
            "snippet": "Blades turn a rotor and a generator.",
            "date": "Mar 4, 2024",
            "position": 1,
            "sitelinks": [{"title": "Offshore", "link": "https://energy.example/offshore"}],
        },
        {
            "title": "Recent",
            "link": "https://news.example/now",
            "snippet": "New farms.",
            "date": "3 days ago",
            "position": 2,
        },
        {"title": "No link", "snippet": "skipped", "position": 3},
    ],
    "peopleAlsoAsk": [{"question": "Q?", "link": "https://faq.example/"}],
    "relatedSearches": [{"query": "wind power"}],
}


async def test_request_shape_and_mapping(search_once, api_key) -> None:
    hits, request = await search_once(
        "serper", RESULTS, '"wind turbines" site:energy.example', limit=5
    )
    assert (request.method, request.path) == ("POST", "/search")
    assert request.json() == {"q": '"wind turbines" site:energy.example', "num": 5}
    assert request.headers["x-api-key"] == api_key
    assert request.headers["content-type"] == "application/json"
    assert [hit.url for hit in hits] == ["https://energy.example/wind", "https://news.example/now"]
    first = hits[0]
    assert (first.title, first.snippet) == (
        "How wind turbines work",
        "Blades turn a rotor and a generator.",
    )
    assert first.published == datetime(2024, 3, 4, tzinfo=UTC)
    assert (first.provider, first.rank, first.content) == ("serper", 0, None)
    assert hits[1].published is None  # "3 days ago" depends on when it was read
