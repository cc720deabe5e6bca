"""Turn the ``search`` setting into a ready ``SearchProvider``, or say what the user must fix.

This is the one place that knows every provider: ``PROVIDERS`` maps each name to how it is
built, and ``PROVIDER_NAMES``, ``URL_PROVIDERS`` and ``parse_search`` derive from it for
the settings, the CLI's help, the service's schema and the docs. The rest of the code sees
only the ``SearchProvider`` protocol. ``search`` names one provider or several
(``"local,searxng"``); several become one ``FanOutSearch`` that fuses their results.
Configuration problems raise ``ConfigError`` (or ``MissingKeyError``) with a hint naming
the flag or environment variable to set.

Adapters are imported by their builders, when a run needs them: the settings and the
CLI's ``--help`` read the names here without loading httpx, lxml or pydantic (issue 19).
The settings import this module for the names, so it imports neither ``settings`` nor
``settings_groups``: a builder reads a ``SearchConfig``, which ``SearchSettings`` (the
search group) answers.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from deepresearch.errors import ConfigError, MissingKeyError
from deepresearch.settings_values import env_names

if TYPE_CHECKING:  # settings imports this module for the provider names
    import httpx
    from pydantic import SecretStr

    from deepresearch.search.adapter import HttpOptions
    from deepresearch.search.base import SearchProvider
    from deepresearch.search.fanout import OnFailure

LocalFactory = Callable[[Path], "SearchProvider"]
#: builds the ``library`` provider over the run owner's library (the composition root
#: knows the owner and where the library is stored; this module reads no Storage)
LibraryFactory = Callable[[], "SearchProvider"]
_NO_KEY = "or use --search duckduckgo, which needs no key"


class SearchConfig(Protocol):
    """The settings the providers are built from (``settings_groups.SearchSettings``)."""

    @property
    def search(self) -> str: ...
    @property
    def searxng_url(self) -> str | None: ...
    @property
    def tavily_api_key(self) -> SecretStr | None: ...
    @property
    def exa_api_key(self) -> SecretStr | None: ...
    @property
    def brave_api_key(self) -> SecretStr | None: ...
    @property
    def google_api_key(self) -> SecretStr | None: ...
    @property
    def google_cse_id(self) -> str | None: ...
    @property
    def serper_api_key(self) -> SecretStr | None: ...
    @property
    def semantic_scholar_api_key(self) -> SecretStr | None: ...
    @property
    def ncbi_api_key(self) -> SecretStr | None: ...
    @property
    def ncbi_email(self) -> str | None: ...
    @property
    def openai_api_key(self) -> SecretStr | None: ...
    @property
    def anthropic_api_key(self) -> SecretStr | None: ...
    @property
    def openai_web_model(self) -> str: ...
    @property
    def anthropic_web_model(self) -> str: ...
    @property
    def arxiv_interval_s(self) -> float: ...
    @property
    def search_urls(self) -> Mapping[str, str]: ...
    @property
    def search_rrf_k(self) -> float: ...
    @property
    def corpus_dir(self) -> Path | None: ...
    @property
    def search_timeout_s(self) -> float: ...
    @property
    def search_max_retries(self) -> int: ...


@dataclass(frozen=True)
class _Build:
    """What a provider is built from: the search group of the settings (not all of them),
    the data folder (the local index lives there) and the run's HTTP client."""

    settings: SearchConfig
    data_dir: Path
    client: httpx.AsyncClient
    local_factory: LocalFactory | None
    library_factory: LibraryFactory | None = None

    @property
    def options(self) -> HttpOptions:
        """Every web adapter's per-attempt timeout and retry policy, from the settings."""
        from deepresearch.search.http import RetryPolicy

        retry = RetryPolicy(max_retries=self.settings.search_max_retries)
        return {"timeout_s": self.settings.search_timeout_s, "retry": retry}

    def url(self, name: str, default: str) -> str:
        return self.settings.search_urls.get(name, default)


@dataclass(frozen=True)
class Provider:
    """One search provider: what it searches, and how it is built from the settings."""

    summary: str
    build: Callable[[_Build], SearchProvider]
    #: the adapter module (in ``deepresearch.search``) whose ``DEFAULT_BASE_URL`` is its
    #: API address, overridable with ``search_urls`` (None: not overridable)
    url_from: str | None = None
    #: the settings it cannot work without, and those it works better with (a key that
    #: raises its rate limit): ``deepresearch init`` asks for them, ``doctor`` checks them
    needs: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()

    @property
    def default_url(self) -> str | None:
        if self.url_from is None:
            return None
        url: str = importlib.import_module(f"deepresearch.search.{self.url_from}").DEFAULT_BASE_URL
        return url


def _searxng(b: _Build) -> SearchProvider:
    from deepresearch.search.searxng import SearxngSearch

    return SearxngSearch(b.client, _searxng_url(b.settings.searxng_url), **b.options)


def _tavily(b: _Build) -> SearchProvider:
    from deepresearch.search import tavily

    key = _key(b.settings.tavily_api_key, "tavily")
    url = b.url("tavily", tavily.DEFAULT_BASE_URL)
    return tavily.TavilySearch(b.client, key, base_url=url, **b.options)


def _exa(b: _Build) -> SearchProvider:
    from deepresearch.search import exa

    key = _key(b.settings.exa_api_key, "exa")
    url = b.url("exa", exa.DEFAULT_BASE_URL)
    return exa.ExaSearch(b.client, key, base_url=url, **b.options)


def _brave(b: _Build) -> SearchProvider:
    from deepresearch.search import brave

    key = _key(b.settings.brave_api_key, "brave")
    url = b.url("brave", brave.DEFAULT_BASE_URL)
    return brave.BraveSearch(b.client, key, base_url=url, **b.options)


def _duckduckgo(b: _Build) -> SearchProvider:
    from deepresearch.search import duckduckgo

    url = b.url("duckduckgo", duckduckgo.DEFAULT_BASE_URL)
    return duckduckgo.DuckDuckGoSearch(b.client, base_url=url, **b.options)


def _google(b: _Build) -> SearchProvider:
    from deepresearch.search import google_cse

    key = _key(b.settings.google_api_key, "google")
    if not b.settings.google_cse_id:
        raise MissingKeyError(
            "the google search provider needs a Programmable Search Engine id",
            hint=f"set {_names('google_cse_id')} (the 'cx' value), {_NO_KEY}",
        )
    url = b.url("google", google_cse.DEFAULT_BASE_URL)
    return google_cse.GoogleSearch(
        b.client, key, b.settings.google_cse_id, base_url=url, **b.options
    )


def _serper(b: _Build) -> SearchProvider:
    from deepresearch.search import serper

    key = _key(b.settings.serper_api_key, "serper")
    url = b.url("serper", serper.DEFAULT_BASE_URL)
    return serper.SerperSearch(b.client, key, base_url=url, **b.options)


def _wikipedia(b: _Build) -> SearchProvider:
    from deepresearch.search import wikipedia as wiki

    url = b.url("wikipedia", wiki.DEFAULT_BASE_URL)
    return wiki.WikipediaSearch(b.client, base_url=url, **b.options)


def _arxiv(b: _Build) -> SearchProvider:
    from deepresearch.search import arxiv

    url = b.url("arxiv", arxiv.DEFAULT_BASE_URL)
    return arxiv.ArxivSearch(
        b.client, base_url=url, min_interval_s=b.settings.arxiv_interval_s, **b.options
    )


def _pubmed(b: _Build) -> SearchProvider:
    from deepresearch.search import pubmed

    url = b.url("pubmed", pubmed.DEFAULT_BASE_URL)
    return pubmed.PubmedSearch(
        b.client,
        api_key=b.settings.ncbi_api_key,
        email=b.settings.ncbi_email,
        base_url=url,
        **b.options,
    )


def _semantic_scholar(b: _Build) -> SearchProvider:
    from deepresearch.search import semantic_scholar as s2

    url = b.url("semantic_scholar", s2.DEFAULT_BASE_URL)
    return s2.SemanticScholarSearch(
        b.client, api_key=b.settings.semantic_scholar_api_key, base_url=url, **b.options
    )


def _openai_web(b: _Build) -> SearchProvider:
    from deepresearch.search import openai_web

    key = _key(b.settings.openai_api_key, "openai", provider="openai_web")
    url = b.url("openai_web", openai_web.DEFAULT_BASE_URL)
    model = b.settings.openai_web_model
    return openai_web.OpenAIWebSearch(b.client, key, model=model, base_url=url, **b.options)


def _anthropic_web(b: _Build) -> SearchProvider:
    from deepresearch.search import anthropic_web

    key = _key(b.settings.anthropic_api_key, "anthropic", provider="anthropic_web")
    url = b.url("anthropic_web", anthropic_web.DEFAULT_BASE_URL)
    model = b.settings.anthropic_web_model
    return anthropic_web.AnthropicWebSearch(b.client, key, model=model, base_url=url, **b.options)


def _local(b: _Build) -> SearchProvider:
    corpus = b.settings.corpus_dir
    if corpus is None:
        raise ConfigError(
            "the local search provider needs a folder of documents to search",
            hint="pass --corpus DIR (or set DEEPRESEARCH_CORPUS_DIR)",
        )
    corpus = corpus.expanduser().resolve()
    if not corpus.is_dir():
        raise ConfigError(f"the corpus folder {corpus} does not exist", hint="check --corpus DIR")
    if b.local_factory is not None:
        return b.local_factory(corpus)
    from deepresearch.search.local import LocalSearch  # its PDF and HTML readers load slowly

    return LocalSearch(corpus, index_path(b.data_dir, corpus))


def _library(b: _Build) -> SearchProvider:
    if b.library_factory is None:
        raise ConfigError(
            "the library search provider is not available here",
            hint="use it for runs: deepresearch run QUESTION --search library",
        )
    return b.library_factory()


def _none(b: _Build) -> SearchProvider:
    from deepresearch.search.none import NoSearch

    return NoSearch()


#: every provider, in the order help texts and docs list them
PROVIDERS: dict[str, Provider] = {
    "searxng": Provider("a SearXNG metasearch server you run", _searxng, needs=("searxng_url",)),
    "tavily": Provider(
        "Tavily's search API for agents", _tavily, "tavily", needs=("tavily_api_key",)
    ),
    "exa": Provider("Exa's neural web search", _exa, "exa", needs=("exa_api_key",)),
    "brave": Provider("the Brave Search web index", _brave, "brave", needs=("brave_api_key",)),
    "duckduckgo": Provider("DuckDuckGo, no key", _duckduckgo, "duckduckgo"),
    "google": Provider(
        "Google Programmable Search",
        _google,
        "google_cse",
        needs=("google_api_key", "google_cse_id"),
    ),
    "serper": Provider(
        "Google results through serper.dev", _serper, "serper", needs=("serper_api_key",)
    ),
    "wikipedia": Provider("Wikipedia (any MediaWiki site)", _wikipedia, "wikipedia"),
    "arxiv": Provider("arXiv preprints", _arxiv, "arxiv"),
    "pubmed": Provider(
        "PubMed biomedical literature",
        _pubmed,
        "pubmed",
        optional=("ncbi_api_key", "ncbi_email"),
    ),
    "semantic_scholar": Provider(
        "Semantic Scholar papers, every field",
        _semantic_scholar,
        "semantic_scholar",
        optional=("semantic_scholar_api_key",),
    ),
    "openai_web": Provider(
        "OpenAI's hosted web search (Responses API)",
        _openai_web,
        "openai_web",
        needs=("openai_api_key",),
    ),
    "anthropic_web": Provider(
        "Anthropic's hosted web search (Messages API)",
        _anthropic_web,
        "anthropic_web",
        needs=("anthropic_api_key",),
    ),
    "local": Provider("your own folder of documents (--corpus)", _local, needs=("corpus_dir",)),
    "library": Provider(
        "your library: imported collections and the pages past runs quoted", _library
    ),
    "none": Provider("no search: the model's knowledge only", _none),
}
PROVIDER_NAMES: tuple[str, ...] = tuple(PROVIDERS)
#: the providers whose API address ``search_urls`` may change
URL_PROVIDERS: tuple[str, ...] = tuple(n for n, p in PROVIDERS.items() if p.url_from)


def parse_search(value: str | Iterable[str]) -> tuple[str, ...]:
    """The provider names in ``"local,searxng"`` (or ``["local", "searxng"]``), in order
    and without repeats. Raises ``ValueError`` (with the known names) for an unknown or
    missing name, and for ``none`` combined with another provider."""
    parts = value.split(",") if isinstance(value, str) else list(value)
    names: list[str] = []
    for part in parts:
        if not isinstance(part, str):
            raise ValueError("search provider names must be text")
        name = part.strip().lower()
        if not name:
            continue
        if name not in PROVIDERS:
            known = ", ".join(PROVIDER_NAMES)
            raise ValueError(f"unknown search provider {part.strip()!r}; choose from: {known}")
        if name not in names:
            names.append(name)
    if not names:
        raise ValueError(
            "no search provider given; name one, or several separated by commas "
            "(e.g. local,searxng), or none"
        )
    if "none" in names and len(names) > 1:
        raise ValueError("'none' means no search, so it cannot be combined with other providers")
    return tuple(names)


def build_search_providers(
    settings: SearchConfig,
    client: httpx.AsyncClient,
    *,
    data_dir: Path,
    local_factory: LocalFactory | None = None,
    library_factory: LibraryFactory | None = None,
) -> list[SearchProvider]:
    """Every provider ``settings.search`` names, each configured from ``settings`` (a local
    corpus's index lives in ``data_dir``; ``library_factory`` builds the ``library``
    provider)."""
    try:
        names = parse_search(settings.search)
    except ValueError as exc:
        raise ConfigError(
            str(exc), hint=f"check --search; providers: {', '.join(PROVIDER_NAMES)}"
        ) from None
    build = _Build(settings, data_dir, client, local_factory, library_factory)
    return [PROVIDERS[name].build(build) for name in names]


def build_search_provider(
    settings: SearchConfig,
    client: httpx.AsyncClient,
    *,
    data_dir: Path,
    local_factory: LocalFactory | None = None,
    library_factory: LibraryFactory | None = None,
    on_failure: OnFailure | None = None,
) -> SearchProvider:
    """The provider ``settings.search`` names, or a ``FanOutSearch`` over several.

    ``on_failure`` hears about a provider that failed while the others answered."""
    providers = build_search_providers(
        settings,
        client,
        data_dir=data_dir,
        local_factory=local_factory,
        library_factory=library_factory,
    )
    if len(providers) == 1:
        return providers[0]
    from deepresearch.search.fanout import FanOutSearch

    return FanOutSearch(providers, k=settings.search_rrf_k, on_failure=on_failure)


def _key(value: SecretStr | None, owner: str, *, provider: str = "") -> SecretStr:
    """The key, or MissingKeyError naming ``{owner}_api_key``'s variables (``provider``:
    the search provider's name when it differs from the key's owner)."""
    if value is None or not value.get_secret_value().strip():
        raise MissingKeyError(
            f"the {provider or owner} search provider needs an API key",
            hint=f"set {_names(f'{owner}_api_key')} (in the environment or .env), {_NO_KEY}",
        )
    return value


def _names(field: str) -> str:
    """``DEEPRESEARCH_TAVILY_API_KEY or TAVILY_API_KEY``: every variable that sets it."""
    return " or ".join(env_names(field))


def _searxng_url(url: str | None) -> str:
    if not url or not url.strip():
        raise ConfigError(
            "the searxng search provider needs the address of a SearXNG server",
            hint=f"pass --searxng-url URL (or set {_names('searxng_url')})",
        )
    if not is_http_url(url):
        raise ConfigError(
            "the SearXNG address must be an http(s) URL such as http://127.0.0.1:8888",
            hint="check --searxng-url",
        )
    return url.strip()


def is_http_url(url: str) -> bool:
    """True for an absolute http(s) URL with a host."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def index_path(data_dir: Path, corpus: Path) -> Path:
    """Where the local index of ``corpus`` lives: one SQLite file per resolved folder."""
    digest = hashlib.sha1(str(corpus.resolve()).encode("utf-8")).hexdigest()  # noqa: S324
    return data_dir / "index" / f"{digest}.sqlite3"
