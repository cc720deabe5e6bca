"""A report's evaluation figures that need no model (issue 16), pure and deterministic:

- **citation precision** = cited sentences whose citations support them / cited sentences;
- **citation recall** = factual sentences with a supporting citation / factual sentences;
- **sub-question coverage** = planned sub-questions the report cites verified evidence
  for (its own, or a follow-up's that it led to) / planned sub-questions.

A sentence is *cited* when it cites verified evidence the report carries; *factual* when
``core.support.is_factual`` says it states something checkable, or it is a verified quote;
a citation *supports* it when the sentence is exactly the quote it cites, or
``core.support.check_support`` (no embedder, so the figures are reproducible) finds the
cited quotes support it fully or in part, the audit's reading of "supported".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from deepresearch.core.audit import cited_passages, is_quote
from deepresearch.core.support import check_support, is_factual
from deepresearch.models import Report, SubQuestion


@dataclass(frozen=True)
class CitationFigures:
    cited: int = 0
    supported_cited: int = 0
    factual: int = 0
    factual_supported: int = 0

    @property
    def precision(self) -> float | None:
        return _share(self.supported_cited, self.cited)

    @property
    def recall(self) -> float | None:
        return _share(self.factual_supported, self.factual)


@dataclass(frozen=True)
class Coverage:
    planned: list[str] = field(default_factory=list)
    covered: list[str] = field(default_factory=list)

    @property
    def share(self) -> float | None:
        return _share(len(self.covered), len(self.planned))

    @property
    def uncovered(self) -> list[str]:
        return [sid for sid in self.planned if sid not in self.covered]


def citation_figures(report: Report) -> CitationFigures:
    """Precision and recall counts over every sentence of ``report``."""
    evidence = {item.id: item for item in report.evidence if item.verified}
    cited = supported_cited = factual = factual_supported = 0
    for sentence in report.all_sentences():
        quote = is_quote(sentence, evidence)
        has_citation = any(cid in evidence for cid in sentence.citations)
        supported = quote or (
            has_citation
            and check_support(sentence.text, cited_passages(sentence, evidence)).verdict
            in ("supported", "partial")
        )
        if has_citation:
            cited += 1
            supported_cited += supported
        if quote or is_factual(sentence.text):
            factual += 1
            factual_supported += supported
    return CitationFigures(cited, supported_cited, factual, factual_supported)


def coverage(
    report: Report, planned: Sequence[SubQuestion], every: Sequence[SubQuestion] = ()
) -> Coverage:
    """Which planned sub-questions the report cites verified evidence for. ``every`` is
    the run's sub-questions (follow-ups name the one they came from, ``parent_id``): a
    follow-up's evidence covers the planned sub-question it led from."""
    parents: Mapping[str, str | None] = {sq.id: sq.parent_id for sq in every}
    cited = set(report.cited_evidence_ids())
    reached: set[str] = set()
    for item in report.evidence:
        if item.id in cited and item.verified:
            reached |= _lineage(item.sub_question_id, parents)
    ids = [sq.id for sq in planned]
    return Coverage(planned=ids, covered=[sid for sid in ids if sid in reached])


def _lineage(sub_question: str, parents: Mapping[str, str | None]) -> set[str]:
    seen: set[str] = set()
    current: str | None = sub_question
    while current is not None and current not in seen:
        seen.add(current)
        current = parents.get(current)
    return seen


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
