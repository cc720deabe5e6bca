"""PubMed adapter against a loopback server speaking NCBI's E-utilities: esearch for the
PMIDs, esummary for their summaries, the parameters NCBI asks for, and its errors."""

from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime

import pytest

from deepresearch.errors import ProviderAuthError, ProviderError, RateLimited
from deepresearch.search.http import RetryPolicy
from deepresearch.search.pubmed import INTERVAL_S, INTERVAL_WITH_KEY_S, PubmedSearch

ESEARCH = "/esearch.fcgi"
ESUMMARY = "/esummary.fcgi"
FOUND = {
    "header": {"type": "esearch", "version": "0.3"},
    "esearchresult": {
        "count": "2841",
        "retmax": "3",
        "retstart": "0",
        "idlist": ["38012345", "37123456", "36000001"],
        "translationset": [],
        "querytranslation": '"statins"[MeSH Terms] OR "statins"[All Fields]',
    },
}
SUMMARIES = {
    "header": {"type": "esummary", "version": "0.3"},
    "result": {
        "uids": ["37123456", "38012345", "36000001"],
        "38012345": {
            "uid": "38012345",
            "pubdate": "2023 Nov 21",
            "epubdate": "2023 Nov 2",
            "source": "Lancet",
            "authors": [
                {"name": "Smith J", "authtype": "Author", "clusterid": ""},
                {"name": "Doe A", "authtype": "Author", "clusterid": ""},
                {"name": "Roe B", "authtype": "Author", "clusterid": ""},
                {"name": "Poe C", "authtype": "Author", "clusterid": ""},
            ],
            "title": "Statins for the  primary prevention of cardiovascular disease.",
            "fulljournalname": "Lancet (London, England)",
            "sortpubdate": "2023/11/21 00:00",
            "articleids": [{"idtype": "doi", "idtypen": 3, "value": "10.1016/x"}],
        },
        "37123456": {
            "uid": "37123456",
            "pubdate": "2022",
            "source": "BMJ",
            "authors": [{"name": "Lee K", "authtype": "Author"}],
            "title": "Adverse effects of statins: a review.",
            "sortpubdate": "2022/01/01 00:00",
        },
        "36000001": {"uid": "36000001", "error": "cannot get document summary"},
    },
}


async def test_two_calls_and_the_mapping(provider_server, connect, api_key) -> None:
    provider_server.route(ESEARCH, 200, FOUND)
    provider_server.route(ESUMMARY, 200, SUMMARIES)
    hits = await connect("pubmed").search("statins primary prevention", limit=3)
    search, summary = provider_server.requests
    assert (search.method, search.path, summary.method, summary.path) == (
        "GET",
        ESEARCH,
        "GET",
        ESUMMARY,
    )
    common = {
        "db": ["pubmed"],
        "retmode": ["json"],
        "tool": ["deepresearch"],
        "email": ["dev@lab.example"],
        "api_key": [api_key],
    }
    assert search.query == {
        **common,
        "term": ["statins primary prevention"],
        "retmax": ["3"],
        "sort": ["relevance"],
    }
    assert summary.query == {**common, "id": ["38012345,37123456,36000001"]}
    # esearch's relevance order, not esummary's; a PMID without a summary is left out
    assert [hit.url for hit in hits] == [
        "https://pubmed.ncbi.nlm.nih.gov/38012345/",
        "https://pubmed.ncbi.nlm.nih.gov/37123456/",
    ]
    first = hits[0]
    assert first.title == "Statins for the primary prevention of cardiovascular disease."
    assert first.snippet == "Lancet (London, England), 2023 Nov 21. Smith J, Doe A, Roe B et al."
    assert first.published == datetime(2023, 11, 21, tzinfo=UTC)
    assert (first.provider, first.rank, first.content) == ("pubmed", 0, None)
    assert hits[1].snippet == "BMJ, 2022. Lee K"


async def test_no_key_and_no_email_are_not_sent(provider_server, client) -> None:
    provider_server.route(ESEARCH, 200, FOUND)
    provider_server.route(ESUMMARY, 200, SUMMARIES)
    adapter = PubmedSearch(client, api_key="  ", base_url=provider_server.base_url)
    await adapter.search("statins", limit=2)
    for request in provider_server.requests:
        assert "api_key" not in request.query and "email" not in request.query
        assert request.param("tool") == "deepresearch"
    assert provider_server.requests[1].param("id") == "38012345,37123456"


async def test_no_pmids_means_no_summary_call(provider_server, connect) -> None:
    provider_server.route(
        ESEARCH, 200, {"esearchresult": {"count": "0", "idlist": [], "warninglist": {}}}
    )
    assert await connect("pubmed").search("zzzxq", limit=5) == []
    assert [request.path for request in provider_server.requests] == [ESEARCH]


async def test_a_bad_term_is_an_error(provider_server, connect) -> None:
    provider_server.route(
        ESEARCH, 200, {"esearchresult": {"ERROR": "Invalid query: unbalanced (parens"}}
    )
    with pytest.raises(ProviderError) as caught:
        await connect("pubmed").search("(statins", limit=5)
    assert type(caught.value) is ProviderError
    assert "unbalanced" not in str(caught.value)


async def test_the_rate_limit_answer(provider_server, connect, api_key) -> None:
    body = {"error": "API rate limit exceeded", "api-key": api_key, "count": "11", "limit": "10"}
    provider_server.route(ESEARCH, 429, body, retry_after="1")
    with pytest.raises(RateLimited) as caught:
        await connect("pubmed").search("statins", limit=5)
    assert api_key not in str(caught.value) and "exceeded" not in str(caught.value)
    assert len(provider_server.requests) == 3  # retried, then given up


async def test_a_refused_key_on_the_summary_call(provider_server, connect, api_key) -> None:
    provider_server.route(ESEARCH, 200, FOUND)
    provider_server.route(ESUMMARY, 400, {"error": "API key invalid", "api-key": api_key})
    with pytest.raises(ProviderAuthError) as caught:
        await connect("pubmed").search("statins", limit=5)
    assert "DEEPRESEARCH_NCBI_API_KEY" in caught.value.hint
    assert api_key not in str(caught.value)


@pytest.mark.parametrize(
    ("status", "body", "what"),
    [
        (200, b"<html>maintenance</html>", "not valid JSON"),
        (200, {"error": "Database is not supported: pubmed"}, "could not summarize"),
    ],
)
async def test_a_broken_summary_call(status, body, what, provider_server, connect) -> None:
    provider_server.route(ESEARCH, 200, FOUND)
    provider_server.route(ESUMMARY, status, body)
    with pytest.raises(ProviderError) as caught:
        await connect("pubmed").search("statins", limit=5)
    assert what in caught.value.message
    assert "maintenance" not in str(caught.value) and "Database" not in str(caught.value)


async def test_an_esummary_without_results_gives_no_hits(provider_server, connect) -> None:
    provider_server.route(ESEARCH, 200, FOUND)
    provider_server.route(ESUMMARY, 200, {"header": {}, "result": {"uids": []}})
    assert await connect("pubmed").search("statins", limit=5) == []


async def test_retmax_follows_the_limit_up_to_100(provider_server, connect) -> None:
    provider_server.route(ESEARCH, 200, FOUND)
    provider_server.route(ESUMMARY, 200, SUMMARIES)
    adapter = connect("pubmed")
    assert len(await adapter.search("statins", limit=1)) == 1
    assert provider_server.requests[0].param("retmax") == "1"
    assert provider_server.requests[1].param("id") == "38012345"
    await adapter.search("statins", limit=250)
    assert provider_server.requests[2].param("retmax") == "100"


def test_ncbi_pace_without_and_with_a_key(client) -> None:
    assert PubmedSearch(client).min_interval_s == pytest.approx(INTERVAL_S)
    assert PubmedSearch(client, api_key="k").min_interval_s == pytest.approx(INTERVAL_WITH_KEY_S)
    assert INTERVAL_S >= 1 / 3 and INTERVAL_WITH_KEY_S >= 1 / 10  # NCBI: 3 (10) a second


async def test_requests_are_paced(provider_server, client) -> None:
    provider_server.route(ESEARCH, 200, FOUND)
    provider_server.route(ESUMMARY, 200, SUMMARIES)
    adapter = PubmedSearch(
        client,
        base_url=provider_server.base_url,
        min_interval_s=0.2,
        retry=RetryPolicy(max_retries=0),
    )
    await asyncio.gather(adapter.search("a", limit=1), adapter.search("b", limit=1))
    starts = sorted(request.received for request in provider_server.requests)
    assert len(starts) == 4
    assert all(b - a >= 0.15 for a, b in itertools.pairwise(starts))
