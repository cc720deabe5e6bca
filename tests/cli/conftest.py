"""Running the real ``deepresearch`` command and the offline web as subprocesses."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.testing.corpus import CorpusDocument, save_corpus

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
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deepresearch.testing.web",
            "--corpus",
            str(cli_corpus),
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    base_url = ""
    for _ in range(50):
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        if found:
            base_url = found.group(0)
            break
    if not base_url:
        proc.kill()
        pytest.fail("the offline web did not print its URL")
    try:
        yield base_url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


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
