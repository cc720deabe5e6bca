"""Corpus builders over the shared data (skipped when ../shared/data is absent)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from deepresearch.testing.corpora import (
    freshwiki_documents,
    hotpotqa_documents,
    hotpotqa_questions,
    join_sentences,
    main,
    vital_documents,
    wikipedia_url,
)
from deepresearch.testing.corpus import load_corpus
from deepresearch.testing.searchindex import OfflineIndex


def test_wikipedia_url_and_sentence_joining() -> None:
    assert wikipedia_url("Lilu (mythology)") == "https://en.wikipedia.org/wiki/Lilu_(mythology)"
    assert wikipedia_url("Arthur? Arthur!") == "https://en.wikipedia.org/wiki/Arthur%3F_Arthur!"
    assert join_sentences(["One.", " Two.", "Three."]) == "One. Two. Three."


def test_freshwiki(shared_data: Path) -> None:
    docs = freshwiki_documents(shared_data)
    assert len(docs) == 100
    assert len({doc.id for doc in docs}) == 100
    assert all(doc.id.startswith("fw-") for doc in docs)
    final = next(doc for doc in docs if doc.title == "2022 AFL Grand Final")
    assert final.id == "fw-2022-afl-grand-final"
    assert final.url == "https://en.wikipedia.org/wiki/2022_AFL_Grand_Final"
    paragraphs = final.text.split("\n\n")
    assert paragraphs[0].startswith("The 2022 AFL Grand Final was an Australian rules")
    assert "## Background" in paragraphs
    assert "## References" not in paragraphs
    assert "Geelong entered their 2022 campaign" in final.text
    assert [doc.id for doc in freshwiki_documents(shared_data, limit=3)] == [
        doc.id for doc in docs[:3]
    ]


def test_vital(shared_data: Path) -> None:
    docs = vital_documents(shared_data)
    assert len(docs) > 10_000
    assert all(doc.id.startswith("va-") and doc.text for doc in docs)
    assert [doc.title for doc in docs] == sorted(doc.title for doc in docs)
    arts = vital_documents(shared_data, limit=5, topics=["arts"])
    assert len(arts) == 5
    odyssey = vital_documents(shared_data, topics=["Arts"])
    film = next(doc for doc in odyssey if doc.title == "2001: A Space Odyssey")
    assert film.url == "https://en.wikipedia.org/wiki/2001:_A_Space_Odyssey"
    assert "Stanley Kubrick" in film.text


def test_hotpotqa_gold_sentences_are_substrings(shared_data: Path) -> None:
    docs = hotpotqa_documents(shared_data)
    assert len(docs) == 994
    by_title = {doc.title: doc for doc in docs}
    corpus = json.loads(
        (shared_data / "qa/hotpotqa/hotpotqa_train_corpus.json").read_text(encoding="utf-8")
    )
    questions = hotpotqa_questions(shared_data)
    assert len(questions) == 100
    for question in questions:
        assert question.question and question.answer
        assert len(question.supporting_sentences) == len(question.supporting_facts)
        for (title, index), gold in zip(
            question.supporting_facts, question.supporting_sentences, strict=True
        ):
            text = by_title[title].text
            assert corpus[title][index] in text
            assert gold in text
    assert by_title["Lilu (mythology)"].id == "hp-lilu-mythology"


def test_builders_are_deterministic(shared_data: Path) -> None:
    assert hotpotqa_documents(shared_data) == hotpotqa_documents(shared_data)
    assert freshwiki_documents(shared_data, 5) == freshwiki_documents(shared_data, 5)


def test_full_index_builds_fast_and_finds_hotpot_gold(shared_data: Path) -> None:
    docs = (
        freshwiki_documents(shared_data)
        + vital_documents(shared_data)
        + hotpotqa_documents(shared_data)
    )
    started = time.perf_counter()
    index = OfflineIndex(docs)
    assert time.perf_counter() - started < 5.0
    found = 0
    questions = hotpotqa_questions(shared_data)
    for question in questions:
        titles = {result.document.title for result in index.search(question.question).results}
        found += any(title in titles for title in question.supporting_titles)
    assert found >= 0.8 * len(questions)


def test_cli_writes_a_loadable_corpus(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "corpus.json"
    argv = ["--data", str(shared_data), "--out", str(out), "--freshwiki", "2", "--vital", "3"]
    assert main([*argv, "--hotpotqa"]) == 0
    assert "wrote 999 documents" in capsys.readouterr().out
    docs = load_corpus(out)
    assert [doc.id[:3] for doc in docs[:6]] == ["fw-", "fw-", "va-", "va-", "va-", "hp-"]
    assert main(["--data", str(tmp_path / "missing"), "--out", str(out)]) == 1
    said = capsys.readouterr().err  # one line on what is missing, one on what to do
    assert said.startswith(f"error: no shared data folder at {tmp_path / 'missing'}\n")
    assert "pydoc_corpus" in said
