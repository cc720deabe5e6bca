"""Semantic Scholar adapter against a loopback server speaking the Academic Graph API's
paper relevance search: the request, the key header, the URLs and texts it keeps."""

from __future__ import annotations

from datetime import UTC, datetime

from deepresearch.search.semantic_scholar import FIELDS, SemanticScholarSearch

RESULTS = {
    "total": 15117,
    "offset": 0,
    "next": 3,
    "data": [
        {
            "paperId": "204e3073870fae3d05bcbc2f6a8e263d9b72e776",
            "url": "https://www.semanticscholar.org/paper/204e3073870fae3d05bcbc2f6a8e263d9b72e776",
            "title": "Attention is All you Need",
            "abstract": "The dominant sequence transduction models are based on complex\n"
            "recurrent or convolutional neural networks.",
            "year": 2017,
            "publicationDate": "2017-06-12",
            "venue": "Neural Information Processing Systems",
            "authors": [{"authorId": "40348417", "name": "Ashish Vaswani"}],
            "externalIds": {"ArXiv": "1706.03762", "DBLP": "conf/nips/VaswaniSPUJGKP17"},
        },
        {
            "paperId": "abc",
            "url": "https://www.semanticscholar.org/paper/abc",
            "title": "A paper without an abstract",
            "abstract": None,
            "year": 2019,
            "publicationDate": None,
            "venue": "Journal of Things",
            "authors": [{"authorId": "1", "name": "B. One"}, {"authorId": "2", "name": "C. Two"}],
            "externalIds": {"DOI": "10.1000/xyz"},
        },
        {"paperId": "nourl", "url": None, "title": "Dropped: no address"},
    ],
}


async def test_request_shape_and_mapping(search_once, api_key) -> None:
    hits, request = await search_once("semantic_scholar", RESULTS, "attention transformer", limit=5)
    assert (request.method, request.path) == ("GET", "/graph/v1/paper/search")
    assert request.query == {"query": ["attention transformer"], "limit": ["5"], "fields": [FIELDS]}
    assert request.headers["x-api-key"] == api_key
    assert [hit.url for hit in hits] == [
        "https://arxiv.org/abs/1706.03762",  # on arXiv: the page the arXiv provider gives too
        "https://www.semanticscholar.org/paper/abc",
    ]
    first, second = hits
    assert first.title == "Attention is All you Need"
    assert first.snippet.startswith(
        "The dominant sequence transduction models are based on complex"
    )
    assert first.content == (
        "Attention is All you Need\n\nThe dominant sequence transduction models are based on "
        "complex recurrent or convolutional neural networks."
    )
    assert first.published == datetime(2017, 6, 12, tzinfo=UTC)
    assert (first.provider, first.rank) == ("semantic_scholar", 0)
    assert second.snippet == "Journal of Things, 2019. B. One, C. Two"
    assert second.content is None and second.published is None


async def test_without_a_key_no_key_header_is_sent(provider_server, client) -> None:
    provider_server.respond(200, RESULTS)
    adapter = SemanticScholarSearch(client, base_url=provider_server.base_url, min_interval_s=0)
    assert len(await adapter.search("attention", limit=3)) == 2
    assert "x-api-key" not in provider_server.last.headers


def test_the_default_pace_is_one_request_a_second(client) -> None:
    assert SemanticScholarSearch(client).min_interval_s == 1.0
