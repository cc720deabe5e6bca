"""The offline web built from ../shared/data: HotpotQA paragraphs, FreshWiki articles and
Vital Article summaries served as real HTML pages with a SearXNG endpoint on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.testing.corpora import (
    freshwiki_documents,
    hotpotqa_documents,
    hotpotqa_questions,
    vital_documents,
)
from deepresearch.testing.corpus import CorpusDocument, save_corpus
from deepresearch.testing.web import OfflineWeb

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="session")
def web_documents() -> list[CorpusDocument]:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return [
        *hotpotqa_documents(SHARED_DATA),
        *freshwiki_documents(SHARED_DATA, limit=25),
        *vital_documents(SHARED_DATA, limit=400),
    ]


@pytest.fixture(scope="session")
def offline_web(web_documents: list[CorpusDocument]) -> Iterator[OfflineWeb]:
    with OfflineWeb(web_documents) as web:
        yield web


@pytest.fixture(scope="session")
def corpus_file(
    web_documents: list[CorpusDocument], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.json"
    save_corpus(web_documents, path)
    return path


@pytest.fixture(scope="session")
def hotpot_question() -> str:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return hotpotqa_questions(SHARED_DATA)[0].question
