"""Verified Findings (seed 002): a report section made only of PASS quotes, copied exactly.

The writer model (or the evidence score, without a model) chooses which quotes; what it
returns is never trusted: ``enforce_findings`` restores any quote the writer altered to the
verified text and drops anything that does not cite verified evidence. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deepresearch.models import Evidence, Paragraph, Section, Sentence

HEADING = "Verified Findings"
MAX_FINDINGS = 5


def quote_text(item: Evidence) -> str:
    return f"“{item.quote}”"


def findings_section(picks: Sequence[tuple[str, str]]) -> Section:
    """A findings section from (evidence id, quote text as the writer gave it) pairs."""
    return Section(
        heading=HEADING,
        kind="verified_findings",
        paragraphs=[
            Paragraph(sentences=[Sentence(text=text, citations=[eid])]) for eid, text in picks
        ],
    )


def enforce_findings(
    sections: Sequence[Section], evidence: Mapping[str, Evidence]
) -> tuple[list[Section], int, int]:
    """Every findings sentence must cite one verified evidence record and be its quote,
    exactly. Returns the sections with altered quotes restored and unverifiable ones
    dropped, and how many were restored and dropped."""
    restored = dropped = 0
    out: list[Section] = []
    for section in sections:
        if section.kind != "verified_findings":
            out.append(section)
            continue
        paragraphs = []
        for paragraph in section.paragraphs:
            for sentence in paragraph.sentences:
                item = evidence.get(sentence.citations[0]) if len(sentence.citations) == 1 else None
                if item is None or not item.verified:
                    dropped += 1
                    continue
                if sentence.text != quote_text(item):
                    restored += 1
                paragraphs.append(
                    Paragraph(sentences=[Sentence(text=quote_text(item), citations=[item.id])])
                )
        if paragraphs:
            out.append(section.model_copy(update={"paragraphs": paragraphs, "heading": HEADING}))
    return out, restored, dropped


CONTRADICTIONS_HEADING = "Where sources disagree"


def contradictions_section(
    pairs: Sequence[tuple[str, str]], evidence: Mapping[str, Evidence]
) -> Section | None:
    """Each contradiction as a paragraph of the two verified quotes that disagree, each
    citing its own source: the reader sees both sides in the sources' own words."""
    paragraphs = []
    for first, second in pairs:
        a, b = evidence.get(first), evidence.get(second)
        if a is None or b is None or not (a.verified and b.verified):
            continue
        paragraphs.append(
            Paragraph(
                sentences=[
                    Sentence(text=quote_text(a), citations=[a.id]),
                    Sentence(text=quote_text(b), citations=[b.id]),
                ]
            )
        )
    if not paragraphs:
        return None
    return Section(heading=CONTRADICTIONS_HEADING, kind="contradictions", paragraphs=paragraphs)
