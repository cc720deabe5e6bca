"""Fixtures for the employer recipe: its lists, real pages about Google from
../shared/data served as an offline web (in process, and as a subprocess for the CLI), and
a helper for Settings that point a run at that web."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepresearch.recipes.employer.lists import EmployerLists, default_lists
from deepresearch.recipes.employer.models import EmployerRequest, EmployerResult
from deepresearch.recipes.registry import get_recipe
from deepresearch.runner import run_recipe
from deepresearch.settings import Settings, load_settings
from deepresearch.testing.corpus import CorpusDocument, save_corpus
from deepresearch.testing.employer import company_documents
from deepresearch.testing.web import OfflineWeb, offline_web_process

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
COMPANY = "Google"
JOB_POSTING = (
    Path(__file__).resolve().parents[2] / "docs" / "examples" / "google-stadia-engineer.txt"
)


async def run_employer(
    request: EmployerRequest,
    settings: Settings,
    *,
    lists: EmployerLists | None = None,
    **kwargs: Any,
) -> EmployerResult:
    """The employer recipe through the registry and the shared runner."""
    result = await run_recipe(
        get_recipe("employer"),
        request,
        settings,
        resources={"lists": lists} if lists is not None else None,
        **kwargs,
    )
    assert isinstance(result, EmployerResult)
    return result


@pytest.fixture
def lists() -> EmployerLists:
    return default_lists()


@pytest.fixture(scope="session")
def google_documents() -> list[CorpusDocument]:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return company_documents(SHARED_DATA, COMPANY)


@pytest.fixture(scope="session")
def google_web(google_documents: list[CorpusDocument]) -> Iterator[OfflineWeb]:
    with OfflineWeb(google_documents) as web:
        yield web


@pytest.fixture
def web(google_web: OfflineWeb) -> OfflineWeb:
    google_web.reset_log()
    return google_web


def web_settings(web: OfflineWeb, tmp_path: Path, **extra: Any) -> Settings:
    """Settings for a run over ``web``: its SearXNG endpoint, its host allowed, a fresh data
    folder, no page cache (so every run fetches), no model unless given."""
    options: dict[str, Any] = {
        "search": "searxng",
        "searxng_url": web.base_url,
        "allow_hosts": [web.base_url.removeprefix("http://")],
        "data_dir": tmp_path / "data",
        "model": "none",
        "page_cache_ttl_s": 0,
    }
    return load_settings(**{**options, **extra})


@pytest.fixture(scope="session")
def google_web_process(
    google_documents: list[CorpusDocument], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``python -m deepresearch.testing.web`` over the Google corpus, and its base URL."""
    corpus = tmp_path_factory.mktemp("employer-corpus") / "corpus.json"
    save_corpus(google_documents, corpus)
    with offline_web_process(corpus) as base_url:
        yield base_url


from .chat import employer_chat_server  # noqa: E402, F401  (a fixture for the recipe's tests)
