"""How a run researched, beside what it wrote (seed 004's process-quality evaluation). Pure.

Seed 004 judges "the research process (search strategy, source diversity)" and weighs it
40% against the report's 60% (``eval_composite``). The judge's half is in
``recipes/research/stages/evaluate.py``; the figures here need no model:

- **source diversity** = distinct domains / sources the run read (1.0: every page from a
  different site; a run that read ten pages of one site scores 0.1);
- **queries per sub-question** = the queries of each researched sub-question's last search
  (a retry replaces them with reformulated ones) / sub-questions researched;
- **retry share** = sub-questions researched more than once (a weak one searched again
  with reformulated queries) / sub-questions researched.

A page's domain is its host without ``www.`` (``core.gate.domain_of``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from deepresearch.core.gate import domain_of
from deepresearch.models import SubQuestion

#: seed 004's ``eval_composite``: the report's quality counts 60%, the process's 40%
REPORT_WEIGHT = 0.6
PROCESS_WEIGHT = 0.4


class ReadPage(Protocol):
    """What a read source tells about where it came from (``models.Source``)."""

    @property
    def url(self) -> str: ...
    @property
    def domain(self) -> str: ...


@dataclass(frozen=True)
class ProcessFigures:
    sources: int = 0
    domains: int = 0
    researched: int = 0
    queries: int = 0
    retried: int = 0

    @property
    def diversity(self) -> float | None:
        return _share(self.domains, self.sources)

    @property
    def queries_per_sub_question(self) -> float | None:
        return round(self.queries / self.researched, 2) if self.researched else None

    @property
    def retry_share(self) -> float | None:
        return _share(self.retried, self.researched)


def process_figures(
    sources: Iterable[ReadPage], sub_questions: Sequence[SubQuestion]
) -> ProcessFigures:
    """The figures of a run that read ``sources`` researching ``sub_questions`` (every
    sub-question of the run: planned, follow-ups and leads; a pending one was never
    researched and does not count)."""
    pages = list(sources)
    domains = {page.domain or domain_of(page.url) for page in pages}
    researched = [sq for sq in sub_questions if sq.attempts > 0]
    return ProcessFigures(
        sources=len(pages),
        domains=len(domains - {""}),
        researched=len(researched),
        queries=sum(len(sq.queries) for sq in researched),
        retried=sum(1 for sq in researched if sq.attempts > 1),
    )


def composite(report: float | None, process: float | None) -> float | None:
    """Seed 004's composite, 0-10: 60% the report's score, 40% the process's; None unless
    both were scored."""
    if report is None or process is None:
        return None
    return round(REPORT_WEIGHT * report + PROCESS_WEIGHT * process, 2)


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
