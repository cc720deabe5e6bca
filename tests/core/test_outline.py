"""The outline made sane: sections on notes the writer was given, no repeated or reserved
headings, a layout the notes can fill, at most MAX_SECTIONS, never nothing."""

from __future__ import annotations

from typing import Any

from deepresearch.core.outline import MAX_SECTIONS, OutlineDraft, SectionPlan, sane_outline

from .test_section_check import ev

LABELS = {
    "E1": ev("ev-1", "The Eiffel Tower was completed in 1889."),
    "E2": ev("ev-2", "The Golden Gate Bridge opened in May 1937."),
    "E3": ev("ev-3", "Both structures are painted regularly."),
    "E4": ev("ev-4", "A quote that failed verification.", verified=False),
}


def plan(*sections: dict[str, Any]) -> list[SectionPlan]:
    return sane_outline(OutlineDraft.model_validate({"sections": list(sections)}), LABELS)


def test_sections_keep_only_labels_of_verified_notes_they_were_given() -> None:
    got = plan(
        {"heading": " Built ", "kind": "Table", "evidence": ["[e1]", "E2", "E9", "E4", "E1"]}
    )
    assert got == [SectionPlan("Built", "table", ("E1", "E2"))]
    assert plan({"heading": "Nothing", "kind": "prose", "evidence": ["E9", "E4"]}) == [
        SectionPlan("Findings", "prose", ("E1", "E2", "E3"))
    ]


def test_reserved_and_repeated_headings_are_dropped() -> None:
    got = plan(
        {"heading": "Verified Findings", "evidence": ["E1"]},
        {"heading": "Sources", "evidence": ["E1"]},
        {"heading": "History", "evidence": ["E1"]},
        {"heading": "history", "evidence": ["E2"]},
    )
    assert got == [SectionPlan("History", "prose", ("E1",))]


def test_a_layout_the_notes_cannot_fill_becomes_one_they_can() -> None:
    got = plan(
        {"heading": "A", "kind": "table", "evidence": ["E1"]},  # one note: prose
        {"heading": "B", "kind": "timeline", "evidence": ["E1", "E3"]},  # one date: list
        {"heading": "C", "kind": "timeline", "evidence": ["E1", "E2"]},
        {"heading": "D", "kind": "poem", "evidence": ["E1", "E2"]},  # unknown: prose
        {"heading": "E", "kind": "comparison", "evidence": ["E1", "E2"]},
    )
    assert [(p.heading, p.layout) for p in got] == [
        ("A", "prose"),
        ("B", "list"),
        ("C", "timeline"),
        ("D", "prose"),
        ("E", "comparison"),
    ]


def test_at_most_max_sections() -> None:
    many = [{"heading": f"S{i}", "evidence": ["E1"]} for i in range(MAX_SECTIONS + 3)]
    assert len(plan(*many)) == MAX_SECTIONS
