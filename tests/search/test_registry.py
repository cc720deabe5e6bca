"""``build_search_provider`` picks and configures the provider, or says what to fix."""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from deepresearch.errors import ConfigError, MissingKeyError
from deepresearch.models import SearchHit
from deepresearch.search.arxiv import ArxivSearch
from deepresearch.search.base import SearchProvider
from deepresearch.search.brave import BraveSearch
from deepresearch.search.duckduckgo import DuckDuckGoSearch
from deepresearch.search.exa import ExaSearch
from deepresearch.search.google_cse import GoogleSearch
from deepresearch.search.http import ProviderUnavailable, RetryPolicy
from deepresearch.search.none import NoSearch
from deepresearch.search.pubmed import PubmedSearch
from deepresearch.search.registry import build_search_provider, index_path
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.semantic_scholar import SemanticScholarSearch
from deepresearch.search.serper import SerperSearch
from deepresearch.search.tavily import TavilySearch
from deepresearch.search.wikipedia import WikipediaSearch
from deepresearch.settings import Settings


def _provider(settings: Settings, client: httpx.AsyncClient, **kw: Any) -> SearchProvider:
    """The registry's provider for ``settings``, a local index in their data folder."""
    return build_search_provider(settings, client, data_dir=settings.data_dir, **kw)


@pytest.fixture
def http(client: httpx.AsyncClient) -> httpx.AsyncClient:
    return client


class FakeLocal:
    name = "local"
    supports_operators = False

    def __init__(self, corpus_dir: Path, index_path: Path | None = None) -> None:
        self.corpus_dir = corpus_dir
        self.index_path = index_path

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        return []


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"search": "duckduckgo"}, DuckDuckGoSearch),
        ({"search": "searxng", "searxng_url": "http://127.0.0.1:8888"}, SearxngSearch),
        ({"search": "tavily", "tavily_api_key": "tvly-1"}, TavilySearch),
        ({"search": "exa", "exa_api_key": "exa-1"}, ExaSearch),
        ({"search": "brave", "brave_api_key": "brave-1"}, BraveSearch),
        ({"search": "google", "google_api_key": "g-1", "google_cse_id": "cx"}, GoogleSearch),
        ({"search": "serper", "serper_api_key": "serp-1"}, SerperSearch),
        ({"search": "wikipedia"}, WikipediaSearch),
        ({"search": "arxiv"}, ArxivSearch),
        ({"search": "pubmed"}, PubmedSearch),
        ({"search": "semantic_scholar"}, SemanticScholarSearch),
        ({"search": "none"}, NoSearch),
    ],
)
def test_builds_each_provider(http, overrides, expected) -> None:
    provider = _provider(Settings(**overrides, search_timeout_s=3.5, search_max_retries=2), http)
    assert type(provider) is expected
    assert isinstance(provider, SearchProvider)
    assert provider.name == overrides["search"]
    if not isinstance(provider, NoSearch):
        assert provider._timeout_s == 3.5
        assert provider._retry.max_retries == 2


@pytest.mark.parametrize("retries", [0, 1])
async def test_the_retry_setting_is_how_often_a_failing_search_is_sent_again(
    http, provider_server, retries
) -> None:
    provider_server.always(503, "<html>down</html>")
    settings = Settings(
        search="searxng", searxng_url=provider_server.base_url, search_max_retries=retries
    )
    with pytest.raises(ProviderUnavailable):
        await _provider(settings, http).search("anything", limit=3)
    assert len(provider_server.requests) == 1 + retries


def test_searches_are_retried_four_times_by_default() -> None:
    # seed 001's retry strategy: CSE_MAX_RETRIES = 4 (5 attempts), 0.5 s to 4 s backoff
    assert Settings().search_max_retries == 4
    assert RetryPolicy().max_retries == 4
    assert (RetryPolicy().base_delay_s, RetryPolicy().max_delay_s) == (0.5, 4.0)


def test_default_is_duckduckgo(http) -> None:
    assert isinstance(_provider(Settings(), http), DuckDuckGoSearch)


def test_keys_come_from_the_environment(http, monkeypatch) -> None:
    monkeypatch.setenv("DEEPRESEARCH_SEARCH", "tavily")
    monkeypatch.setenv("DEEPRESEARCH_TAVILY_API_KEY", "tvly-env")
    provider = _provider(Settings(), http)
    assert isinstance(provider, TavilySearch)
    assert provider._key == SecretStr("tvly-env")


@pytest.mark.parametrize("name", ["tavily", "exa", "brave", "google", "serper"])
@pytest.mark.parametrize("key", [None, "   "])
def test_missing_key_names_the_variable_and_the_keyless_option(http, name, key) -> None:
    overrides = {"search": name, f"{name}_api_key": key, "google_cse_id": "cx"}
    with pytest.raises(MissingKeyError) as caught:
        _provider(Settings(**overrides), http)
    assert f"DEEPRESEARCH_{name.upper()}_API_KEY" in caught.value.hint
    assert "--search duckduckgo" in caught.value.hint
    assert name in caught.value.message


def test_google_needs_a_search_engine_id(http) -> None:
    with pytest.raises(MissingKeyError) as caught:
        _provider(Settings(search="google", google_api_key="g-1"), http)
    assert "DEEPRESEARCH_GOOGLE_CSE_ID" in caught.value.hint


def test_searxng_needs_a_url(http) -> None:
    with pytest.raises(ConfigError) as caught:
        _provider(Settings(search="searxng"), http)
    assert "--searxng-url" in caught.value.hint


@pytest.mark.parametrize("url", ["127.0.0.1:8888", "ftp://host/", "http://"])
def test_searxng_url_must_be_http(http, url) -> None:
    with pytest.raises(ConfigError) as caught:
        _provider(Settings(search="searxng", searxng_url=url), http)
    assert "--searxng-url" in caught.value.hint


def test_unknown_provider(http) -> None:
    with pytest.raises(ConfigError) as caught:
        _provider(Settings.model_construct(search="altavista"), http)
    assert "altavista" in caught.value.message
    assert "duckduckgo" in caught.value.hint


def test_local_needs_a_corpus(http) -> None:
    with pytest.raises(ConfigError) as caught:
        _provider(Settings(search="local"), http)
    assert "--corpus DIR" in caught.value.hint


def test_local_corpus_must_exist(http, tmp_path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(ConfigError) as caught:
        _provider(Settings(search="local", corpus_dir=missing), http)
    assert str(missing) in caught.value.message


def test_local_factory_gets_the_resolved_corpus(http, tmp_path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    seen: list[Path] = []

    def factory(path: Path) -> SearchProvider:
        seen.append(path)
        return FakeLocal(path)

    relative = Path("docs")  # the autouse fixture made tmp_path the working directory
    provider = _provider(Settings(search="local", corpus_dir=relative), http, local_factory=factory)
    assert isinstance(provider, FakeLocal)
    assert seen == [corpus.resolve()]


def test_local_default_uses_local_search_with_a_per_corpus_index(
    http, tmp_path, monkeypatch
) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    module = types.ModuleType("deepresearch.search.local")
    module.LocalSearch = FakeLocal  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "deepresearch.search.local", module)
    data_dir = tmp_path / "data"

    provider = _provider(Settings(search="local", corpus_dir=corpus, data_dir=data_dir), http)
    assert isinstance(provider, FakeLocal)
    digest = hashlib.sha1(str(corpus.resolve()).encode()).hexdigest()
    assert provider.corpus_dir == corpus.resolve()
    assert provider.index_path == data_dir / "index" / f"{digest}.sqlite3"
    assert index_path(data_dir, corpus) == provider.index_path
