"""The research plan's outline (seed 004): besides the brief and the sub-questions, the
plan says its **scope** (what the answer covers), its **evidence strategy** (how sources
are found and checked) and the **output format** (what the report will look like). The
planner writes them; where it gives none (or there is no model) these deterministic
words say what the run will actually do, so every plan has all three."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.core.text import clip

MAX_OUTLINE_CHARS = 600

OUTPUT_FORMAT = (
    "A cited report: a title, a short summary whose every sentence cites its evidence, "
    "sections written from the verified notes (prose, lists, tables, timelines or "
    "comparisons as the notes suit), where sources disagree, the limitations and the "
    "sources table."
)


@dataclass(frozen=True)
class Outline:
    scope: str
    evidence_strategy: str
    output_format: str


def outline(
    sub_questions: Sequence[str],
    *,
    scope: str = "",
    evidence_strategy: str = "",
    output_format: str = "",
    queries_per_question: int,
    min_domains: int,
    searched: bool,
) -> Outline:
    """The plan's scope, evidence strategy and output format: the planner's words where it
    gave them (trimmed, clipped), else what the run will do."""
    if not scope.strip():
        scope = f"{len(sub_questions)} sub-question(s): " + "; ".join(
            text.strip() for text in sub_questions
        )
    if not evidence_strategy.strip():
        evidence_strategy = (
            (
                f"Web search, {queries_per_question} query(ies) a sub-question; sources kept "
                f"above the relevance threshold, from at least {min_domains} domain(s); every "
                "finding verified against the words it quotes before the writer sees it."
            )
            if searched
            else "No search: nothing is searched or cited; a writer model answers from its "
            "own knowledge, labelled as not researched."
        )
    if not output_format.strip():
        output_format = OUTPUT_FORMAT
    return Outline(
        scope=_tidy(scope),
        evidence_strategy=_tidy(evidence_strategy),
        output_format=_tidy(output_format),
    )


def _tidy(text: str) -> str:
    return clip(" ".join(text.split()), MAX_OUTLINE_CHARS)
