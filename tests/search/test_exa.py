"""Exa adapter against a loopback server speaking Exa's /search wire format."""

from __future__ import annotations

from datetime import UTC, datetime

from deepresearch.search.exa import SNIPPET_CHARS

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


async def test_request_shape_and_mapping(search_once, api_key) -> None:
    hits, request = await search_once("exa", RESULTS, "tidal energy", limit=4)
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
