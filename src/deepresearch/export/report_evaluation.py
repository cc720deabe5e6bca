"""The words of a report's "Evaluation" section, when the report was evaluated: its
heading, its figures, the judge's line and the dimensions' names
(``export.report_document`` puts them in the page-neutral document). Pure."""

from __future__ import annotations

from deepresearch.models import EvalResult

HEADING = "Evaluation"
DIMENSION_NAMES = {
    "comprehensiveness": "Comprehensiveness",
    "insight": "Insight",
    "instruction_following": "Instruction following",
    "readability": "Readability",
    "search_strategy": "Search strategy (process)",
    "source_diversity": "Source diversity (process)",
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
        *process_figures(result),
    ]


def process_figures(result: EvalResult) -> list[str]:
    """The research process's figures (seed 004), when the evaluation counted them."""

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.0%}"

    if not result.sources_read and not result.researched:
        return []
    per = result.queries_per_sub_question
    return [
        f"Source diversity {pct(result.source_diversity)}: {result.distinct_domains} distinct "
        f"domains among {result.sources_read} sources read.",
        f"Search: {'n/a' if per is None else f'{per:g}'} queries per sub-question; "
        f"{result.retried} of {result.researched} sub-questions searched again "
        f"(retry share {pct(result.retry_share)}).",
    ]


def judge_line(result: EvalResult) -> str:
    if result.overall is None:
        return result.judge_note.capitalize() + "." if result.judge_note else ""
    line = (
        f"Judge ({result.judge_model}), DeepResearch Bench's RACE dimensions, 0-10: "
        f"overall {result.overall:.1f}."
    )
    if result.process_overall is not None and result.composite is not None:
        line += (
            f" Process (search strategy, source diversity) {result.process_overall:.1f};"
            f" composite {result.composite:.1f} (60% report, 40% process)."
        )
    return line
