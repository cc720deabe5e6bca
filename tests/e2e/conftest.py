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


@pytest.fixture(autouse=True)
def _every_finished_run_replays(tmp_path: Path) -> Iterator[None]:
    """After each end-to-end test, every run it finished is replayed from a copy of its
    recording in a new data folder with every network socket refused (issue 19): the
    replay must render the same markdown and JSON, byte for byte, as the run's own report
    (``tests/e2e/test_replay.py`` also counts the model calls, searches and fetches). Runs
    that paused for an answer are resumed with the recorded answers; a follow-up reads
    its parent from its own recording (the copy holds no other run's); a run under a
    budget follows its recorded budget decisions. None is left out."""
    yield
    import asyncio
    import json
    import shutil

    import pytest_socket

    from deepresearch.compose.replay import replay_run
    from deepresearch.export.formats import TEXT_FORMATS, render_text
    from deepresearch.runner import load_result
    from deepresearch.settings import load_settings

    for number, manifest in enumerate(sorted(tmp_path.rglob("recordings/*/manifest.json"))):
        recorded = json.loads(manifest.read_text(encoding="utf-8"))
        if not recorded.get("finished"):
            continue  # a paused or failed run: nothing to reproduce
        data_dir = manifest.parents[2]
        recipe, original = asyncio.run(
            load_result(load_settings(data_dir=data_dir), manifest.parent.name)
        )
        copy = tmp_path / "replayed" / str(number)
        shutil.copytree(manifest.parent, copy)
        pytest_socket.disable_socket(allow_unix_socket=True)
        try:
            _, replayed = asyncio.run(
                replay_run(load_settings(data_dir=tmp_path / "elsewhere"), folder=copy)
            )
        finally:  # back to the suite's rule: loopback only
            pytest_socket.enable_socket()
            pytest_socket.socket_allow_hosts(
                ["127.0.0.1", "::1", "localhost"], allow_unix_socket=True
            )
        if getattr(original, "evaluation", None) is not None and not getattr(
            replayed, "evaluation", None
        ):
            # ``deepresearch eval`` evaluated the stored run after it ended: the replay
            # reproduces the report the run wrote, which had no evaluation yet
            original = original.model_copy(update={"evaluation": None})
        for fmt in TEXT_FORMATS:
            assert render_text(recipe, replayed, fmt) == render_text(recipe, original, fmt), (
                f"the replay of {manifest.parent.name} rendered {fmt} differently"
            )
