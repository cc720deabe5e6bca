"""The writer's citation filter: only known evidence labels survive; invented labels are
dropped and counted; sentences left without a citation stay for the audit to judge."""

from __future__ import annotations

from deepresearch.recipes.research.stages.write import DraftSentence, _cited

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


def test_unknown_labels_are_dropped_and_counted() -> None:
    out, invented = _cited([draft("A.", "E9", "E1", "ev-a", "")], LABELS)
    assert invented == 2  # E9 and ev-a; an empty label is ignored
    assert out[0].citations == ["ev-a"]


def test_sentences_without_a_valid_citation_stay_for_the_audit() -> None:
    sentences = [
        draft("Cited.", "E1"),
        draft("No citation at all."),
        draft("Only invented labels.", "E7", "X1"),
        draft("Cited too.", "E3"),
    ]
    out, invented = _cited(sentences, LABELS)
    assert [(s.text, s.citations) for s in out] == [
        ("Cited.", ["ev-a"]),
        ("No citation at all.", []),
        ("Only invented labels.", []),
        ("Cited too.", ["ev-c"]),
    ]
    assert invented == 2


def test_blank_sentences_are_neither_kept_nor_counted() -> None:
    out, dropped = _cited([draft("   ", "E1"), draft("\n", "E7"), draft("")], LABELS)
    assert (out, dropped) == ([], 0)


def test_sentence_whitespace_is_collapsed() -> None:
    out, _ = _cited([draft("  Bees\n  dance\tdaily. ", "E1")], LABELS)
    assert out[0].text == "Bees dance daily."


def test_no_labels_means_every_citation_is_invented() -> None:
    out, invented = _cited([draft("A.", "E1"), draft("B.", "E2")], {})
    assert [s.citations for s in out] == [[], []]
    assert invented == 2
