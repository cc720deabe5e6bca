"""A small report whose every sentence was checked by hand, for the evaluation's figures.

| # | sentence (citations)                                          | cited | factual | supported by its citations |
|---|---------------------------------------------------------------|-------|---------|----------------------------|
| 1 | completed in 1889 for the World's Fair (E1)                    | yes   | yes     | yes: E1 says so            |
| 2 | 330 metres tall (E2)                                           | yes   | yes     | yes: E2 says so            |
| 3 | completed in 1925 (E1)                                         | yes   | yes     | no: E1 says 1889           |
| 4 | Eiffel's company designed and built it for the 1889 fair (E1, E3) | yes | yes     | yes: E3 and E1 together    |
| 5 | millions of visitors each year (none)                          | no    | yes     | no citation                |
| 6 | "Next, we turn to its history." (none)                         | no    | no      | (not a fact)               |
| 7 | the verified quote of E2, as a Verified Finding (E2)           | yes   | yes     | yes: it is the quote       |

Citation precision: supported cited / cited = 4 / 5 = 0.8.
Citation recall: factual with a supporting citation / factual = 4 / 6 = 0.6667.
Sub-questions: q1 (E1, E3 cited), q2 (E2 cited), q3 (nothing): coverage 2 / 3 = 0.6667.
"""

from __future__ import annotations

from datetime import UTC, datetime

from deepresearch.models import (
    Evidence,
    Paragraph,
    Plan,
    Report,
    Section,
    Sentence,
    SubQuestion,
    Verification,
)

QUESTION = "When was the Eiffel Tower built, how tall is it, and how much did it cost?"
QUOTES = {
    "E1": ("q1", "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."),
    "E2": ("q2", "It is 330 metres tall and was the tallest structure in the world until 1930."),
    "E3": ("q1", "Gustave Eiffel's company designed and built the tower."),
}
SUB_QUESTIONS = [
    SubQuestion(id="q1", text="When and by whom was the Eiffel Tower built?"),
    SubQuestion(id="q2", text="How tall is the Eiffel Tower?"),
    SubQuestion(id="q3", text="How much did the Eiffel Tower cost?"),
]
PRECISION, RECALL, COVERAGE = 0.8, 0.6667, 0.6667


def _evidence(eid: str) -> Evidence:
    sub_question, quote = QUOTES[eid]
    return Evidence(
        id=eid,
        sub_question_id=sub_question,
        claim=quote,
        quote=quote,
        source_id=f"s-{eid}",
        source_url=f"https://example.org/{eid}",
        start=0,
        end=len(quote),
        verification=Verification(status="PASS", method="exact", score=1.0, start=0),
    )


def hand_checked_report(run_id: str = "run-hand-checked") -> Report:
    def said(text: str, *cites: str) -> Sentence:
        return Sentence(text=text, citations=list(cites))

    body = [
        said("The tower is 330 metres tall.", "E2"),
        said("The tower was completed in 1925.", "E1"),
        said(
            "Gustave Eiffel's company designed and built the tower for the 1889 World's Fair.",
            "E1",
            "E3",
        ),
        said(
            "It remains one of the most visited monuments in the world, with millions of "
            "visitors each year."
        ),
        said("Next, we turn to its history."),
    ]
    return Report(
        run_id=run_id,
        question=QUESTION,
        title="The Eiffel Tower",
        kind="synthesized",
        summary=[said(QUOTES["E1"][1], "E1")],
        sections=[
            Section(
                heading="Verified Findings",
                kind="verified_findings",
                paragraphs=[Paragraph(sentences=[said(f"“{QUOTES['E2'][1]}”", "E2")])],
            ),
            Section(heading="Findings", paragraphs=[Paragraph(sentences=body)]),
        ],
        evidence=[_evidence(eid) for eid in QUOTES],
        created_at=datetime.now(UTC),
    )


def hand_checked_state(run_id: str = "run-hand-checked") -> dict[str, object]:
    """The state of a finished research run whose report is the one above."""
    plan = Plan(question=QUESTION, brief="Dates, height and cost.", sub_questions=SUB_QUESTIONS)
    return {
        "recipe": "research",
        "run_id": run_id,
        "question": QUESTION,
        "plan": plan,
        "sub_questions": list(SUB_QUESTIONS),
        "evidence": [_evidence(eid) for eid in QUOTES],
        "report": hand_checked_report(run_id),
    }
