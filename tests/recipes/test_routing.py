"""Seed 000, section 8: the routing function, the route taken, each route's state changes
(8.3), the single retry limit, and the state flow of section 13.2."""

from __future__ import annotations

from typing import Any

import pytest

from deepresearch.recipes.employer.models import (
    CompanyVerification,
    EmployerState,
    ResearchRerankerOutput,
)
from deepresearch.recipes.employer.routing import (
    apply_route,
    next_phase,
    route_after_research_reranker,
    route_taken,
)


def output(action: str, data: str = "PARTIAL", research: str = "MEDIUM") -> ResearchRerankerOutput:
    return ResearchRerankerOutput.model_validate(
        {
            "data_quality_tier": data,
            "research_quality_tier": research,
            "data_confidence_score": 50,
            "recommended_action": action,
            "company_verifiability": "VERIFIED",
            "company_verification": CompanyVerification(status="VERIFIED"),
        }
    )


def state(out: ResearchRerankerOutput | None, **fields: Any) -> EmployerState:
    return EmployerState(research_reranker_output=out, current_phase="research_reranker", **fields)


@pytest.mark.parametrize(
    ("out", "fields", "node"),
    [
        (output("EARLY_EXIT", "SPARSE", "INSUFFICIENT"), {}, "generate_results"),
        (output("CONTINUE", "GARBAGE", "HIGH"), {}, "generate_results"),  # garbage wins
        (output("CONTINUE", "CLEAN", "HIGH"), {"early_exit": True}, "generate_results"),
        (output("ENHANCE_SEARCH", "SPARSE", "LOW"), {"search_attempt": 1}, "deep_research"),
        (output("ENHANCE_SEARCH", "SPARSE", "LOW"), {"search_attempt": 2}, "skeptical_comparison"),
        (output("CONTINUE", "CLEAN", "HIGH"), {}, "skeptical_comparison"),
        (output("CONTINUE_WITH_FLAGS"), {}, "skeptical_comparison"),
        (None, {}, "skeptical_comparison"),  # no output: PARTIAL / CONTINUE, proceed
    ],
)
def test_route_after_research_reranker(
    out: ResearchRerankerOutput | None, fields: dict[str, Any], node: str
) -> None:
    assert route_after_research_reranker(state(out, **fields)) == node


@pytest.mark.parametrize(
    ("out", "attempt", "route"),
    [
        (output("CONTINUE", "CLEAN", "HIGH"), 1, "CONTINUE"),
        (output("CONTINUE", "PARTIAL", "MEDIUM"), 1, "CONTINUE"),
        (output("CONTINUE", "SPARSE", "LOW"), 1, "CONTINUE_WITH_FLAGS"),  # 8.1: LOW carries flags
        (output("CONTINUE_WITH_FLAGS", "PARTIAL", "MEDIUM"), 1, "CONTINUE_WITH_FLAGS"),
        (output("ENHANCE_SEARCH", "SPARSE", "LOW"), 1, "ENHANCE_SEARCH"),
        (
            output("ENHANCE_SEARCH", "SPARSE", "LOW"),
            2,
            "CONTINUE_WITH_FLAGS",
        ),  # the one retry is spent
        (output("EARLY_EXIT", "GARBAGE", "INSUFFICIENT"), 1, "EARLY_EXIT"),
    ],
)
def test_route_taken(out: ResearchRerankerOutput, attempt: int, route: str) -> None:
    assert route_taken(state(out, search_attempt=attempt)) == route


# seed 000, 8.3, row by row
@pytest.mark.parametrize(
    ("route", "changes"),
    [
        ("CONTINUE", {"current_phase": "skeptical_comparison", "low_data_flag": False}),
        ("CONTINUE_WITH_FLAGS", {"current_phase": "skeptical_comparison", "low_data_flag": True}),
        ("ENHANCE_SEARCH", {"current_phase": "deep_research", "search_attempt": 2}),
        (
            "EARLY_EXIT",
            {"current_phase": "generate_results", "early_exit": True, "low_data_flag": True},
        ),
    ],
)
def test_each_routes_state_changes(route: str, changes: dict[str, Any]) -> None:
    before = state(output("CONTINUE"), search_attempt=1, low_data_flag=True)
    after = apply_route(before, route)  # type: ignore[arg-type]
    fields = ("current_phase", "search_attempt", "low_data_flag", "early_exit")
    changed = {f: getattr(after, f) for f in fields if getattr(after, f) != getattr(before, f)}
    expected = {k: v for k, v in changes.items() if getattr(before, k) != v}
    assert changed == expected
    assert after.current_phase == changes["current_phase"] == next_phase(route)  # type: ignore[arg-type]


def test_enhance_then_continue_is_the_seeds_state_flow() -> None:
    """Section 13.2: SPARSE on attempt 1 -> retry (attempt 2) -> PARTIAL, with flags."""
    first = state(output("ENHANCE_SEARCH", "SPARSE", "LOW"), search_attempt=1)
    route = route_taken(first)
    retry = apply_route(first, route)
    assert (route, retry.search_attempt, retry.current_phase) == (
        "ENHANCE_SEARCH", 2, "deep_research",
    )  # fmt: skip
    second = retry.model_copy(
        update={"research_reranker_output": output("CONTINUE_WITH_FLAGS", "PARTIAL", "MEDIUM")}
    )
    done = apply_route(second, route_taken(second))
    assert (done.low_data_flag, done.current_phase, done.search_attempt) == (
        True, "skeptical_comparison", 2,
    )  # fmt: skip


def test_a_second_enhance_is_never_routed_back() -> None:
    current = state(output("ENHANCE_SEARCH", "SPARSE", "LOW"), search_attempt=1)
    visits = 0
    for _ in range(5):  # however often the reranker asks
        if route_after_research_reranker(current) != "deep_research":
            break
        visits += 1
        current = apply_route(current, "ENHANCE_SEARCH")
    assert visits == 1 and current.search_attempt == 2
