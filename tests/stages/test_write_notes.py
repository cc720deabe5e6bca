"""What the writer is shown: each note with how well it is supported and which notes
disagree with it, the quote last (it may run over several lines)."""

from __future__ import annotations

from typing import Any, cast

from deepresearch.models import Evidence, Plan, SubQuestion
from deepresearch.recipes.research.stages.write import _notes


def ev(eid: str, text: str, source: str) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="q1",
        claim=text,
        quote=text,
        source_id=source,
        source_url=f"https://{source}.example/page",
        start=0,
        end=len(text),
        score=0.5,
    )


def test_notes_carry_support_and_disagreement() -> None:
    evidence = [
        ev("e1", "The Eiffel Tower was completed in 1889 for the fair.", "a"),
        ev("e2", "The Eiffel Tower was completed in 1887 for the fair.", "b"),
    ]
    sub = SubQuestion(id="q1", text="When was the Eiffel Tower completed?")
    state: dict[str, Any] = {
        "question": "When was the Eiffel Tower completed?",
        "plan": Plan(
            question="When was the Eiffel Tower completed?",
            brief="Find the completion year.",
            sub_questions=[sub],
        ),
        "sub_questions": [sub],
        "sources": {},
    }
    text = _notes(cast(Any, state), evidence, 10)
    first, second = text.split('label="E2"')
    assert "Disagrees with: E2" in first and "Disagrees with: E1" in second
    assert "Support: " in first and "another disagrees" in first
    # the quote is the last field of each note
    assert first.index("Support: ") < first.index("Quote: ")
