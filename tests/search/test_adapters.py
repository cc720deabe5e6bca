"""What every web adapter does alike, over real HTTP on loopback: map a plain result list,
honour ``limit`` (in the reply and in the count it asks for), and say what it supports."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from deepresearch.search.adapter import Found, ranked_hits
from deepresearch.search.anthropic_web import AnthropicWebSearch
from deepresearch.search.arxiv import ArxivSearch
from deepresearch.search.brave import BraveSearch
from deepresearch.search.duckduckgo import DuckDuckGoSearch
from deepresearch.search.exa import ExaSearch
from deepresearch.search.google_cse import GoogleSearch
from deepresearch.search.openai_web import OpenAIWebSearch
from deepresearch.search.pubmed import PubmedSearch
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.semantic_scholar import SemanticScholarSearch
from deepresearch.search.serper import SerperSearch
from deepresearch.search.tavily import TavilySearch
from deepresearch.search.wikipedia import WikipediaSearch
from tests.search.conftest import DIRECT_URL, JSON_ADAPTERS, Recorded, results_body

HIT = "https://a.example/page"
LISTED = [
    ("https://a.example/1", "One", "first"),
    None,
    ("https://a.example/2", "Two", "second"),
    ("https://a.example/3", "Three", "third"),
]
OPERATORS = [
    (SearxngSearch, "searxng", True),
    (TavilySearch, "tavily", False),
    (ExaSearch, "exa", False),
    (BraveSearch, "brave", True),
    (GoogleSearch, "google", True),
    (DuckDuckGoSearch, "duckduckgo", True),
    (SerperSearch, "serper", True),
    (WikipediaSearch, "wikipedia", False),
    (ArxivSearch, "arxiv", False),
    (PubmedSearch, "pubmed", False),
    (SemanticScholarSearch, "semantic_scholar", False),
    (OpenAIWebSearch, "openai_web", False),
    (AnthropicWebSearch, "anthropic_web", False),
]
#: where a provider is told how many hits to return, and the most it may be asked for
REQUESTED: dict[str, tuple[Callable[[Recorded], int], int]] = {
    "tavily": (lambda request: request.json()["max_results"], 20),
    "exa": (lambda request: request.json()["numResults"], 100),
    "brave": (lambda request: int(request.param("count")), 20),
    "google": (lambda request: int(request.param("num")), 10),
    "serper": (lambda request: request.json()["num"], 100),
    "wikipedia": (lambda request: int(request.param("srlimit")), 50),
    "arxiv": (lambda request: int(request.param("max_results")), 100),
    "semantic_scholar": (lambda request: int(request.param("limit")), 100),
}
#: a successful reply with no result list at all
NO_LIST = {
    "brave": {"type": "search", "query": {"original": "q"}},
    "google": {"kind": "customsearch#search", "searchInformation": {}},
}


@pytest.mark.parametrize("adapter_name", DIRECT_URL)
async def test_happy_path(adapter_name, provider_server, connect) -> None:
    provider_server.respond(200, results_body(adapter_name, [(HIT, "A", "a")]))
    hits = await connect(adapter_name).search("q", limit=5)
    assert [(hit.url, hit.title, hit.provider, hit.rank) for hit in hits] == [
        (HIT, "A", adapter_name, 0)
    ]


@pytest.mark.parametrize("adapter_name", DIRECT_URL)
async def test_limit_caps_the_hits_and_skips_entries_without_a_url(
    adapter_name, provider_server, connect
) -> None:
    provider_server.always(200, results_body(adapter_name, LISTED))
    adapter = connect(adapter_name)
    hits = await adapter.search("q", limit=2)
    assert [hit.url for hit in hits] == ["https://a.example/1", "https://a.example/2"]
    assert [hit.rank for hit in hits] == [0, 1]
    sent = len(provider_server.requests)
    assert await adapter.search("q", limit=0) == []
    assert len(provider_server.requests) == sent, "a limit of 0 sends nothing"


@pytest.mark.parametrize("adapter_name", sorted(REQUESTED))
async def test_requested_count_follows_the_limit_up_to_the_cap(
    adapter_name, provider_server, connect
) -> None:
    requested, cap = REQUESTED[adapter_name]
    provider_server.always(200, results_body(adapter_name, LISTED))
    adapter = connect(adapter_name)
    assert len(await adapter.search("q", limit=1)) == 1
    assert requested(provider_server.last) == 1
    await adapter.search("q", limit=cap + 30)
    assert requested(provider_server.last) == cap


@pytest.mark.parametrize("adapter_name", JSON_ADAPTERS)
async def test_a_reply_without_a_result_list_means_no_hits(
    adapter_name, provider_server, connect
) -> None:
    provider_server.respond(200, NO_LIST.get(adapter_name, {}))
    assert await connect(adapter_name).search("q", limit=3) == []


@pytest.mark.parametrize(("adapter", "adapter_name", "supported"), OPERATORS)
def test_name_and_operators(adapter, adapter_name, supported) -> None:
    assert adapter.name == adapter_name
    assert adapter.supports_operators is supported


def test_ranked_hits_reads_no_further_than_the_limit() -> None:
    read: list[str] = []

    def found() -> Iterator[Found]:
        for url in ["https://a.example/1", "", "https://a.example/2", "https://a.example/3"]:
            read.append(url)
            yield Found(url=url, title=url[-1:], score=0.5)

    hits = ranked_hits(found(), provider="demo", query="q", limit=2)
    assert [(hit.url, hit.rank, hit.provider, hit.query, hit.score) for hit in hits] == [
        ("https://a.example/1", 0, "demo", "q", 0.5),
        ("https://a.example/2", 1, "demo", "q", 0.5),
    ]
    assert len(read) == 3, "the entry after the last hit is never mapped"
    assert ranked_hits(found(), provider="demo", query="q", limit=0) == []
