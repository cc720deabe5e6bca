"""Shared test setup. pytest-socket (configured in pyproject.toml) refuses every
non-loopback connection, so no test can reach the internet or a private network."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.testing.corpora import hotpotqa_documents, hotpotqa_questions
from deepresearch.testing.web import OfflineWeb

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No real keys, config files or data dirs leak into tests."""
    for key in list(os.environ):
        if key.startswith("DEEPRESEARCH_") or key.endswith("_API_KEY"):
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
def questions() -> list[str]:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return [item.question for item in hotpotqa_questions(SHARED_DATA)]
