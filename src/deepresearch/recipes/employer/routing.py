"""Routing after the reranker (seed 000, section 8), pure.

:func:`route_after_research_reranker` is section 8.2's function; :func:`route_taken`
names which row of section 8.3's table applies (8.1's tree: CONTINUE needs a HIGH or
MEDIUM tier, anything else that goes on carries the low-data flag); :func:`apply_route`
makes that row's state changes. The retry happens at most once: ENHANCE_SEARCH only
routes back to deep research while ``search_attempt < 2``, and the retry raises it to 2.
"""

from __future__ import annotations

from typing import Literal, assert_never

from deepresearch.recipes.employer.models import (
    Action,
    EmployerState,
    Phase,
    StateChanges,
)

NextNode = Literal["skeptical_comparison", "deep_research", "generate_results"]
MAX_SEARCH_ATTEMPTS = 2


def route_after_research_reranker(state: EmployerState) -> NextNode:
    """Seed 8.2, verbatim in meaning (no reranker output reads as PARTIAL / CONTINUE)."""
    output = state.research_reranker_output
    data_tier = output.data_quality_tier if output else "PARTIAL"
    action = output.recommended_action if output else "CONTINUE"
    # CRITICAL: early exit for garbage or suspicious data
    if state.early_exit or action == "EARLY_EXIT" or data_tier == "GARBAGE":
        return "generate_results"
    # ENHANCE: retry the search for sparse data (first attempt only)
    if action == "ENHANCE_SEARCH" and state.search_attempt < MAX_SEARCH_ATTEMPTS:
        return "deep_research"
    # CONTINUE: good or acceptable data proceeds; the default is to proceed with caution
    return "skeptical_comparison"


def route_taken(state: EmployerState) -> Action:
    """Which row of seed 8.3 applies (8.1: CONTINUE only with a HIGH or MEDIUM tier)."""
    node = route_after_research_reranker(state)
    if node == "generate_results":
        return "EARLY_EXIT"
    if node == "deep_research":
        return "ENHANCE_SEARCH"
    output = state.research_reranker_output
    action = output.recommended_action if output else "CONTINUE"
    tier = output.research_quality_tier if output else "MEDIUM"
    if action == "CONTINUE" and tier in ("HIGH", "MEDIUM"):
        return "CONTINUE"
    return "CONTINUE_WITH_FLAGS"


def apply_route(state: EmployerState, route: Action) -> EmployerState:
    """Seed 8.3's state changes for ``route``."""
    if route == "CONTINUE":
        update: dict[str, object] = {
            "current_phase": "skeptical_comparison",
            "low_data_flag": False,
        }
    elif route == "CONTINUE_WITH_FLAGS":
        update = {"current_phase": "skeptical_comparison", "low_data_flag": True}
    elif route == "ENHANCE_SEARCH":
        update = {"current_phase": "deep_research", "search_attempt": state.search_attempt + 1}
    elif route == "EARLY_EXIT":
        update = {"current_phase": "generate_results", "early_exit": True, "low_data_flag": True}
    else:
        assert_never(route)
    return state.model_copy(update=update)


def next_phase(route: Action) -> Phase:
    """Where ``route`` leads."""
    if route in ("CONTINUE", "CONTINUE_WITH_FLAGS"):
        return "skeptical_comparison"
    if route == "ENHANCE_SEARCH":
        return "deep_research"
    return "generate_results"


def snapshot(state: EmployerState) -> StateChanges:
    """The fields section 8.3 changes, for the routing trace."""
    return StateChanges(
        current_phase=state.current_phase,
        search_attempt=state.search_attempt,
        low_data_flag=state.low_data_flag,
        early_exit=state.early_exit,
    )
