"""The "Evaluation" section of a rendered report (HTML; its words for the page-neutral
document the other formats draw, too), when the report was evaluated. Pure. The judge's
reasons are a model's words: the renderer passes its own escaping in, so they are
neutralized like every other model text."""

from __future__ import annotations

import html
from collections.abc import Callable

from deepresearch.models import EvalResult

HEADING = "Evaluation"
DIMENSION_NAMES = {
    "comprehensiveness": "Comprehensiveness",
    "insight": "Insight",
    "instruction_following": "Instruction following",
    "readability": "Readability",
}


def figures(result: EvalResult) -> list[str]:
    """The figures computed without a model, one line each, with their counts."""

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.0%}"

    covered = len(result.covered)
    return [
        f"Citation precision {pct(result.citation_precision)}: {result.supported_cited} of "
        f"{result.cited_sentences} cited sentences are supported by what they cite.",
        f"Citation recall {pct(result.citation_recall)}: {result.factual_supported} of "
        f"{result.factual_sentences} factual sentences have a supporting citation.",
        f"Sub-question coverage {pct(result.coverage)}: {covered} of {result.sub_questions} "
        "planned sub-questions have cited evidence"
        + (f" (not: {', '.join(result.uncovered)})." if result.uncovered else "."),
    ]


def judge_line(result: EvalResult) -> str:
    if result.overall is None:
        return result.judge_note.capitalize() + "." if result.judge_note else ""
    return (
        f"Judge ({result.judge_model}), DeepResearch Bench's RACE dimensions, 0-10: "
        f"overall {result.overall:.1f}."
    )


def evaluation_html(result: EvalResult, text: Callable[[str], str]) -> str:
    """An HTML section; ``text`` neutralizes a model's words (escaping is done here)."""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in figures(result))
    parts = [f'<section class="evaluation"><h2>{HEADING}</h2><ul>{items}</ul>']
    judged = judge_line(result)
    if judged:
        parts.append(f'<p class="judge">{html.escape(text(judged))}</p>')
    if result.scores:
        rows = "".join(
            f"<tr><td>{DIMENSION_NAMES[s.dimension]}</td><td>{s.score:.1f}</td>"
            f"<td>{html.escape(text(s.reason))}</td></tr>"
            for s in result.scores
        )
        parts.append(
            "<table><thead><tr><th>dimension</th><th>score</th><th>reason</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )
    parts.append("</section>")
    return "".join(parts)
