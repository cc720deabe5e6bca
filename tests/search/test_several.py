"""``search`` naming several providers: how the setting is written (flag, TOML list,
environment, API), what is refused, the fan-out the registry builds, and the one list of
provider names everything else derives from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from deepresearch.cli.app import app
from deepresearch.errors import ConfigError
from deepresearch.search.arxiv import ArxivSearch
from deepresearch.search.base import SearchProvider
from deepresearch.search.fanout import FanOutSearch
from deepresearch.search.registry import (
    PROVIDER_NAMES,
    PROVIDERS,
    URL_PROVIDERS,
    build_search_provider,
    build_search_providers,
    parse_search,
)
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.serper import SerperSearch
from deepresearch.service.schemas import ResearchOptions, ResearchRequest
from deepresearch.settings import Settings, load_settings
from tests.search.conftest import results_body


def _provider(settings: Settings, client: httpx.AsyncClient, **kw: Any) -> SearchProvider:
    """The registry's provider for ``settings``, a local index in their data folder."""
    return build_search_provider(settings, client, data_dir=settings.data_dir, **kw)


def _providers(settings: Settings, client: httpx.AsyncClient) -> list[SearchProvider]:
    return build_search_providers(settings, client, data_dir=settings.data_dir)


DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize(
    "value",
    ["local,searxng", " Local , SEARXNG ", ["local", "searxng"], "local,searxng,local"],
)
def test_several_providers_are_written_as_a_comma_list_or_a_list(value) -> None:
    assert load_settings(search=value).search == "local,searxng"


def test_a_toml_list_and_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("DEEPRESEARCH_SEARCH", "arxiv, pubmed")
    assert load_settings().search == "arxiv,pubmed"
    monkeypatch.setenv("DEEPRESEARCH_SEARCH", '["wikipedia", "arxiv"]')
    assert load_settings().search == "wikipedia,arxiv"
    (tmp_path / "deepresearch.toml").write_text('search = ["local", "searxng"]\n')
    assert load_settings().search == "local,searxng"


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("local,none", "'none' means no search, so it cannot be combined"),
        ("local,altavista", "unknown search provider 'altavista'; choose from: searxng"),
        (" , ", "no search provider given"),
        ([], "no search provider given"),
    ],
)
def test_bad_provider_lists_are_refused_clearly(value, says) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(search=value)
    assert says in caught.value.message
    assert caught.value.message.startswith("invalid configuration: search:")


def test_the_registry_builds_a_fan_out_in_the_order_given(client, provider_server) -> None:
    settings = Settings(
        search="serper,searxng,arxiv",
        serper_api_key="serp-1",
        searxng_url=provider_server.base_url,
        search_rrf_k=20,
    )
    heard: list[object] = []
    provider = _provider(settings, client, on_failure=heard.append)
    assert isinstance(provider, FanOutSearch)
    assert provider.name == "serper,searxng,arxiv"
    assert [type(p) for p in provider.providers] == [SerperSearch, SearxngSearch, ArxivSearch]
    assert provider._k == 20 and provider._on_failure == heard.append
    assert [p.name for p in _providers(settings, client)] == [
        "serper",
        "searxng",
        "arxiv",
    ]


def test_a_misconfigured_member_stops_the_build(client) -> None:
    with pytest.raises(ConfigError) as caught:
        _provider(Settings(search="arxiv,local"), client)
    assert "--corpus DIR" in caught.value.hint


async def test_search_urls_point_a_provider_elsewhere(client, provider_server) -> None:
    provider_server.respond(200, results_body("serper", [("https://a.example/", "A", "a")]))
    settings = Settings(
        search="serper", serper_api_key="serp-1", search_urls={"serper": provider_server.base_url}
    )
    hits = await _provider(settings, client).search("q", limit=3)
    assert [hit.url for hit in hits] == ["https://a.example/"]
    assert provider_server.last.path == "/search"


@pytest.mark.parametrize(
    ("urls", "says"),
    [
        ({"altavista": "http://127.0.0.1:1"}, "'altavista' has no API address to change"),
        ({"local": "http://127.0.0.1:1"}, "'local' has no API address to change"),
        ({"searxng": "http://127.0.0.1:1"}, "SearXNG's is searxng_url"),
        ({"arxiv": "export.arxiv.org"}, "search_urls.arxiv must be an http(s) URL"),
    ],
)
def test_bad_search_urls(urls, says) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(search_urls=urls)
    assert says in caught.value.message


def test_polite_defaults_come_from_the_settings(client) -> None:
    (arxiv,) = _providers(Settings(search="arxiv"), client)
    assert isinstance(arxiv, ArxivSearch) and arxiv.min_interval_s == 3.0
    (faster,) = _providers(Settings(search="arxiv", arxiv_interval_s=5), client)
    assert isinstance(faster, ArxivSearch) and faster.min_interval_s == 5.0


def test_new_keys_are_secrets() -> None:
    settings = Settings(
        serper_api_key="serp-secret",
        semantic_scholar_api_key="s2-secret",
        ncbi_api_key="ncbi-secret",
    )
    assert {"serp-secret", "s2-secret", "ncbi-secret"} <= set(settings.secrets())
    assert "serp-secret" not in repr(settings)


def test_the_api_takes_a_list_or_a_comma_string() -> None:
    assert ResearchOptions(search=["local", "searxng"]).search == "local,searxng"
    assert ResearchOptions(search="arxiv, pubmed").settings_update() == {"search": "arxiv,pubmed"}
    with pytest.raises(ValueError, match="cannot be combined"):
        ResearchRequest(question="q", options={"search": ["none", "local"]})
    with pytest.raises(ValueError, match="unknown search provider"):
        ResearchOptions(search="bing")


def test_one_list_of_provider_names_everywhere() -> None:
    """The registry owns the names; settings, the CLI, the API schema and the docs follow."""
    assert tuple(PROVIDERS) == PROVIDER_NAMES
    assert set(URL_PROVIDERS) < set(PROVIDER_NAMES)
    for name in PROVIDER_NAMES:
        assert parse_search(name) == (name,)
    help_text = CliRunner().invoke(app, ["run", "--help"], terminal_width=400).output
    schema = str(ResearchOptions.model_json_schema()["properties"]["search"])
    providers_doc = (DOCS / "providers.md").read_text()
    config_doc = (DOCS / "configuration.md").read_text()
    for name in PROVIDER_NAMES:
        assert name in help_text, f"--search help misses {name}"
        assert name in schema, f"the API schema misses {name}"
        assert f"| `{name}` |" in providers_doc, f"docs/providers.md misses {name}"
        assert f"`{name}`" in config_doc, f"docs/configuration.md misses {name}"
