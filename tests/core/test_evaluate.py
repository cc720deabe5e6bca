"""The evaluation's figures computed without a model (``core.evaluate``), on a report
whose every sentence was checked by hand (``hand_checked.py`` has the table)."""

from __future__ import annotations

from deepresearch.core.evaluate import citation_figures, coverage
from deepresearch.models import SubQuestion

from .hand_checked import COVERAGE, PRECISION, RECALL, SUB_QUESTIONS, hand_checked_report


def test_citation_precision_and_recall_match_the_hand_check() -> None:
    figures = citation_figures(hand_checked_report())
    assert (figures.cited, figures.supported_cited) == (5, 4)
    assert (figures.factual, figures.factual_supported) == (6, 4)
    assert figures.precision == PRECISION and figures.recall == RECALL


def test_coverage_counts_planned_sub_questions_with_cited_evidence() -> None:
    found = coverage(hand_checked_report(), SUB_QUESTIONS)
    assert found.covered == ["q1", "q2"] and found.uncovered == ["q3"]
    assert found.share == COVERAGE


def test_evidence_the_report_carries_but_never_cites_covers_nothing() -> None:
    report = hand_checked_report().model_copy(update={"sections": []})  # only E1 is cited
    assert {item.sub_question_id for item in report.evidence} == {"q1", "q2"}
    assert coverage(report, SUB_QUESTIONS).covered == ["q1"]


def test_a_follow_up_covers_the_sub_question_it_came_from() -> None:
    report = hand_checked_report()
    follow_up = SubQuestion(id="q2-f1", text="Height?", parent_id="q2")
    moved = [
        item.model_copy(update={"sub_question_id": "q2-f1"}) if item.id == "E2" else item
        for item in report.evidence
    ]
    report = report.model_copy(update={"evidence": moved})
    assert coverage(report, SUB_QUESTIONS, [*SUB_QUESTIONS, follow_up]).covered == ["q1", "q2"]
    assert coverage(report, SUB_QUESTIONS).covered == ["q1"]


def test_a_report_without_citations_has_no_precision_and_zero_recall() -> None:
    report = hand_checked_report()
    bare = report.model_copy(
        update={
            "summary": [s.model_copy(update={"citations": []}) for s in report.summary],
            "sections": [],
        }
    )
    figures = citation_figures(bare)
    assert figures.precision is None and figures.recall == 0.0
