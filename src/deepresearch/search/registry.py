"""Turn ``Settings.search`` into a ready ``SearchProvider``, or say what the user must fix.

This is the one place that knows every provider's name; the rest of the code sees only
the ``SearchProvider`` protocol. Configuration problems raise ``ConfigError`` (or
``MissingKeyError``) with a hint naming the flag or environment variable to set.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from pydantic import SecretStr

from deepresearch.errors import ConfigError, MissingKeyError
from deepresearch.search.base import SearchProvider
from deepresearch.search.brave import BraveSearch
from deepresearch.search.duckduckgo import DuckDuckGoSearch
from deepresearch.search.exa import ExaSearch
from deepresearch.search.google_cse import GoogleSearch
from deepresearch.search.none import NoSearch
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.tavily import TavilySearch
from deepresearch.settings import SEARCH_PROVIDERS, Settings

LocalFactory = Callable[[Path], SearchProvider]
_NO_KEY = "or use --search duckduckgo, which needs no key"


def build_search_provider(
    settings: Settings,
    client: httpx.AsyncClient,
    *,
    local_factory: LocalFactory | None = None,
) -> SearchProvider:
    """The provider ``settings.search`` names, configured from ``settings``."""
    name = settings.search
    timeout_s = settings.search_timeout_s
    if name == "duckduckgo":
        return DuckDuckGoSearch(client, timeout_s=timeout_s)
    if name == "searxng":
        return SearxngSearch(client, _searxng_url(settings.searxng_url), timeout_s=timeout_s)
    if name == "tavily":
        return TavilySearch(client, _key(settings.tavily_api_key, "tavily"), timeout_s=timeout_s)
    if name == "exa":
        return ExaSearch(client, _key(settings.exa_api_key, "exa"), timeout_s=timeout_s)
    if name == "brave":
        return BraveSearch(client, _key(settings.brave_api_key, "brave"), timeout_s=timeout_s)
    if name == "google":
        key = _key(settings.google_api_key, "google")
        if not settings.google_cse_id:
            raise MissingKeyError(
                "the google search provider needs a Programmable Search Engine id",
                hint=f"set DEEPRESEARCH_GOOGLE_CSE_ID (the 'cx' value), {_NO_KEY}",
            )
        return GoogleSearch(client, key, settings.google_cse_id, timeout_s=timeout_s)
    if name == "local":
        return _local(settings, local_factory)
    if name == "none":
        return NoSearch()
    known = ", ".join(SEARCH_PROVIDERS)
    raise ConfigError(f"unknown search provider {name!r}", hint=f"choose one of: {known}")


def _key(value: SecretStr | None, provider: str) -> SecretStr:
    if value is None or not value.get_secret_value().strip():
        raise MissingKeyError(
            f"the {provider} search provider needs an API key",
            hint=f"set DEEPRESEARCH_{provider.upper()}_API_KEY, {_NO_KEY}",
        )
    return value


def _searxng_url(url: str | None) -> str:
    if not url or not url.strip():
        raise ConfigError(
            "the searxng search provider needs the address of a SearXNG server",
            hint="pass --searxng-url URL (or set DEEPRESEARCH_SEARXNG_URL)",
        )
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            "the SearXNG address must be an http(s) URL such as http://127.0.0.1:8888",
            hint="check --searxng-url",
        )
    return url.strip()


def _local(settings: Settings, factory: LocalFactory | None) -> SearchProvider:
    corpus = settings.corpus_dir
    if corpus is None:
        raise ConfigError(
            "the local search provider needs a folder of documents to search",
            hint="pass --corpus DIR (or set DEEPRESEARCH_CORPUS_DIR)",
        )
    corpus = corpus.expanduser().resolve()
    if not corpus.is_dir():
        raise ConfigError(f"the corpus folder {corpus} does not exist", hint="check --corpus DIR")
    if factory is not None:
        return factory(corpus)
    from deepresearch.search.local import LocalSearch

    return LocalSearch(corpus, index_path(settings.data_dir, corpus))


def index_path(data_dir: Path, corpus: Path) -> Path:
    """Where the local index of ``corpus`` lives: one SQLite file per resolved folder."""
    digest = hashlib.sha1(str(corpus.resolve()).encode("utf-8")).hexdigest()  # noqa: S324
    return data_dir / "index" / f"{digest}.sqlite3"
