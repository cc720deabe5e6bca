"""The plan's outline (``core.research_plan``, seed 004): the planner's scope, evidence
strategy and output format where it gave them, else what the run will do."""

from __future__ import annotations

from deepresearch.core.research_plan import MAX_OUTLINE_CHARS, OUTPUT_FORMAT, outline
from deepresearch.models import Plan


def test_the_planners_words_are_kept_tidied() -> None:
    made = outline(
        ["Who?", "When?"],
        scope="  Only the\n1990s. ",
        evidence_strategy="Court records.",
        output_format="A timeline.",
        queries_per_question=3,
        min_domains=2,
        searched=True,
    )
    assert (made.scope, made.evidence_strategy, made.output_format) == (
        "Only the 1990s.",
        "Court records.",
        "A timeline.",
    )


def test_without_the_planners_words_the_outline_says_what_the_run_does() -> None:
    made = outline(["Who?", "When?"], queries_per_question=3, min_domains=2, searched=True)
    assert made.scope == "2 sub-question(s): Who?; When?"
    assert "3 query(ies) a sub-question" in made.evidence_strategy
    assert "at least 2 domain(s)" in made.evidence_strategy
    assert made.output_format == OUTPUT_FORMAT
    unsearched = outline(["Why?"], queries_per_question=3, min_domains=2, searched=False)
    assert unsearched.evidence_strategy.startswith("No search")


def test_a_long_outline_is_clipped() -> None:
    made = outline(
        ["Q?"], scope="word " * 400, queries_per_question=1, min_domains=1, searched=True
    )
    assert len(made.scope) <= MAX_OUTLINE_CHARS


def test_a_plan_from_an_older_checkpoint_loads_without_an_outline() -> None:
    old = {"question": "Q?", "brief": "B.", "sub_questions": [], "fallback": True}
    plan = Plan.model_validate(old)
    assert (plan.scope, plan.evidence_strategy, plan.output_format) == ("", "", "")
