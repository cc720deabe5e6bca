"""The writer's citation filter: only known evidence labels survive, uncited sentences
are removed and counted."""

from __future__ import annotations

from deepresearch.stages.write import DraftSentence, _cited

LABELS = {"E1": "ev-a", "E2": "ev-b", "E3": "ev-c"}


def draft(text: str, *cite: str) -> DraftSentence:
    return DraftSentence(text=text, cite=list(cite))


def test_known_labels_become_evidence_ids_in_order_without_repeats() -> None:
    out, dropped = _cited([draft("Bees pollinate.", "E2", "E1", "E2")], LABELS)
    assert dropped == 0
    assert [(s.text, s.citations) for s in out] == [("Bees pollinate.", ["ev-b", "ev-a"])]


def test_labels_are_read_leniently() -> None:
    out, _ = _cited([draft("A.", " [e3] ", "e1", "[E1]")], LABELS)
    assert out[0].citations == ["ev-c", "ev-a"]


def test_unknown_labels_are_dropped_but_the_sentence_stays_when_one_is_known() -> None:
    out, dropped = _cited([draft("A.", "E9", "E1", "ev-a", "")], LABELS)
    assert dropped == 0
    assert out[0].citations == ["ev-a"]


def test_sentences_without_a_valid_citation_are_removed_and_counted() -> None:
    sentences = [
        draft("Cited.", "E1"),
        draft("No citation at all."),
        draft("Only invented labels.", "E7", "X1"),
        draft("Cited too.", "E3"),
    ]
    out, dropped = _cited(sentences, LABELS)
    assert [s.text for s in out] == ["Cited.", "Cited too."]
    assert dropped == 2


def test_blank_sentences_are_neither_kept_nor_counted() -> None:
    out, dropped = _cited([draft("   ", "E1"), draft("\n", "E7"), draft("")], LABELS)
    assert (out, dropped) == ([], 0)


def test_sentence_whitespace_is_collapsed() -> None:
    out, _ = _cited([draft("  Bees\n  dance\tdaily. ", "E1")], LABELS)
    assert out[0].text == "Bees dance daily."


def test_no_labels_means_everything_is_dropped() -> None:
    out, dropped = _cited([draft("A.", "E1"), draft("B.", "E2")], {})
    assert (out, dropped) == ([], 2)
