"""Seed 004's process-quality figures (no model) and its 60/40 composite, on hand-made runs."""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.core.process_quality import composite, process_figures
from deepresearch.models import SubQuestion


@dataclass(frozen=True)
class Page:
    url: str
    domain: str = ""


def _sq(sid: str, attempts: int, queries: int) -> SubQuestion:
    return SubQuestion(
        id=sid, text=sid, attempts=attempts, queries=[f"{sid} {i}" for i in range(queries)]
    )


def test_diversity_queries_and_retries_are_counted() -> None:
    pages = [
        Page("https://www.a.example/1", "a.example"),
        Page("https://a.example/2", "a.example"),
        Page("https://b.example/x"),  # no domain stored: taken from the address
        Page("https://www.c.example/y"),
    ]
    asked = [_sq("q1", 1, 3), _sq("q2", 2, 2), _sq("q3", 3, 1), _sq("q4", 0, 3)]
    figures = process_figures(pages, asked)
    assert (figures.sources, figures.domains) == (4, 3)
    assert figures.diversity == 0.75
    # q4 is still pending: never researched, so neither its queries nor it count
    assert (figures.researched, figures.queries, figures.retried) == (3, 6, 2)
    assert figures.queries_per_sub_question == 2.0
    assert figures.retry_share == 0.6667


def test_a_run_that_read_nothing_has_no_shares() -> None:
    figures = process_figures([], [_sq("q1", 0, 2)])
    assert (figures.diversity, figures.queries_per_sub_question, figures.retry_share) == (
        None,
        None,
        None,
    )


def test_composite_weighs_report_60_and_process_40() -> None:
    assert composite(8.0, 5.0) == 6.8
    assert composite(10.0, 0.0) == 6.0
    assert composite(7.0, None) is None and composite(None, 6.0) is None
