"""Running the real ``deepresearch`` command and the offline web as subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.testing.corpus import CorpusDocument, save_corpus
from deepresearch.testing.web import offline_web_process

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )


@pytest.fixture(scope="session")
def cli_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from deepresearch.testing.corpora import freshwiki_documents, hotpotqa_documents

    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    documents: list[CorpusDocument] = [
        *hotpotqa_documents(SHARED_DATA),
        *freshwiki_documents(SHARED_DATA, limit=10),
    ]
    path = tmp_path_factory.mktemp("cli-corpus") / "corpus.json"
    save_corpus(documents, path)
    return path


@pytest.fixture(scope="session")
def web_process(cli_corpus: Path) -> Iterator[str]:
    """``python -m deepresearch.testing.web --corpus PATH --port 0`` and its base URL."""
    with offline_web_process(cli_corpus) as base_url:
        yield base_url


def offline_args(base_url: str, *extra: str) -> list[str]:
    """Flags that point a run at the offline web and let the fetcher reach it."""
    return [
        "--search",
        "searxng",
        "--searxng-url",
        base_url,
        "--allow-host",
        base_url.removeprefix("http://"),
        *extra,
    ]


from .chat_server import chat_server  # noqa: E402, F401  (a fixture for every CLI test)
