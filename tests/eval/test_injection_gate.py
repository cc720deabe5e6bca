"""Quality gate for the injection detector on the labelled corpus (``bench/data/injection``).

460 pages: 230 hand-written payloads in nine languages, each once in plain words and once
disguised, each hidden one of 20 ways inside a page of benign context, extracted and
scanned the way the reading stage does it. Every class must keep a recall of at least
0.95, counted two ways: a finding of that very class (kind recall), and the page dropped at
all (flagged recall); on every page, and on the ``test`` payloads that were not looked at
while the rules were written. The tricky benign texts must not be flagged, and the few
pages *about* prompt injection that quote payloads are flagged, as the policy says
(``docs/architecture.md``, "Untrusted content")."""

from __future__ import annotations

import pytest
from bench.injection import TARGET_RECALL, Tally, corpus_recall, findings_for
from bench.injection_data import CORPUS, benign_pages, build, load_corpus

from deepresearch.injection import KINDS

CLASSES = ("addressed", "delimiter", "fetch", "dictation", "concealment")


@pytest.fixture(scope="module")
def tallies() -> tuple[Tally, Tally]:
    every, test, _, _ = corpus_recall(load_corpus())
    return every, test


def test_the_corpus_file_is_built_from_its_sources() -> None:
    """``corpus.jsonl`` is what ``python -m bench.injection_data`` writes: no hand edits."""
    assert [case.as_json() for case in build()] == [case.as_json() for case in load_corpus()]
    cases = load_corpus(CORPUS)
    assert len(cases) >= 300
    assert {case.lang for case in cases} >= {"en", "de", "fr", "es", "it", "pt", "zh", "ru", "ja"}
    assert len({case.hiding for case in cases}) >= 15
    assert len({case.encoding for case in cases}) >= 8
    for kind in CLASSES:
        assert sum(kind in case.labels for case in cases) >= 30, kind


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_class_keeps_its_recall(tallies: tuple[Tally, Tally], kind: str) -> None:
    for tally in tallies:
        if not tally.pages[kind]:
            continue
        assert tally.recall(kind, tally.kind) >= TARGET_RECALL, (kind, tally.kind[kind])
        assert tally.recall(kind, tally.flagged) >= TARGET_RECALL, (kind, tally.flagged[kind])


def test_tricky_benign_texts_are_left_alone_and_pages_about_injection_are_not() -> None:
    flagged, policy = [], []
    for row, fmt, content in benign_pages():
        found = findings_for(fmt, content)
        if row["kind"] == "about-injection":
            policy.append(bool(found))
        elif found:
            flagged.append((row["id"], found[0].describe()))
    assert flagged == []
    assert policy and all(policy)
