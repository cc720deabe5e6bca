"""Shared test setup. pytest-socket (configured in pyproject.toml) refuses every
non-loopback connection, so no test can reach the internet or a private network."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepresearch.testing.corpora import hotpotqa_documents, hotpotqa_questions
from deepresearch.testing.web import OfflineWeb

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


#: names read beside DEEPRESEARCH_* and *_API_KEY (settings.ECOSYSTEM_ENV, the model SDKs)
ECOSYSTEM_NAMES = ("SEARXNG_URL", "SEARX_HOST", "GOOGLE_CSE_ID", "OLLAMA_HOST", "OPENAI_BASE_URL")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadscope`` (``make test``): one test at a time, one file at a time where
    its tests share a module-scoped fixture (tests/parallel.py). Only called with
    pytest-xdist, so only imported then."""
    if config.getvalue("dist") != "loadscope":
        return None
    from .parallel import SpreadScheduling

    return SpreadScheduling(config, log)


@pytest.fixture
def _environ_snapshot() -> Iterator[None]:
    """The environment as it was, restored after the test and after monkeypatch's own undo
    (a .env file loaded by a test puts variables there that monkeypatch never saw)."""
    from deepresearch import envfile

    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)
    envfile._loaded.clear()


@pytest.fixture(autouse=True)
def _isolated_env(_environ_snapshot: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No real keys, config files or data dirs leak into tests."""
    for key in list(os.environ):
        if key.startswith("DEEPRESEARCH_") or key.endswith("_API_KEY") or key in ECOSYSTEM_NAMES:
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def service_web() -> Iterator[OfflineWeb]:
    """The HotpotQA pages of ../shared/data as an offline web with a SearXNG endpoint
    (the service and web-page tests)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    with OfflineWeb(hotpotqa_documents(SHARED_DATA)) as web:
        yield web


@pytest.fixture(scope="session")
def pydoc_web() -> Iterator[OfflineWeb]:
    """The demo's corpus (the interpreter's own documentation, ``make demo``) as an offline
    web: the docs' examples ask about Python, and here they find pages about it."""
    from deepresearch.testing.corpus import CorpusDocument
    from deepresearch.testing.pydoc_corpus import build_pages

    documents = [
        CorpusDocument(id=path.removesuffix(".md"), title=_heading(text, path), text=text)
        for path, text in build_pages().items()
    ]
    with OfflineWeb(documents) as web:
        yield web


def _heading(markdown: str, fallback: str) -> str:
    first = markdown.lstrip().split("\n", 1)[0]
    return first.lstrip("# ").strip() or fallback


@pytest.fixture(scope="session")
def questions() -> list[str]:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return [item.question for item in hotpotqa_questions(SHARED_DATA)]
