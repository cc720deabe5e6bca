"""The plan stage keeps the planner's queries even when it numbers its sub-questions."""

from __future__ import annotations

from deepresearch.recipes.research.stages.plan import _key


def test_numbered_and_respaced_questions_share_a_key() -> None:
    assert _key("1. What  is X?") == _key("What is X") == _key("what is x?")
    assert _key("Q2: Who built it?") == _key("Who built it?")
