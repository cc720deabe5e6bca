"""Google Custom Search adapter against a loopback server speaking the CSE JSON API."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from tests.search.conftest import CSE_ID

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


async def test_request_shape_and_mapping(search_once, api_key) -> None:
    hits, request = await search_once("google", RESULTS, 'intitle:geothermal "heat"', limit=5)
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
