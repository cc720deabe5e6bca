"""The employer graph's state (checkpointed after every node) and its context (the run's
ports and the recipe's lists, which are not checkpointed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from deepresearch.context import RunContext
from deepresearch.models import Evidence, Source, Usage
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import (
    Attempt,
    Classification,
    EmployerRequest,
    EmployerResult,
    EmployerState,
    RoutingStep,
)


@dataclass
class EmployerContext:
    """What the nodes get through LangGraph's Runtime: the run's ports and the lists."""

    run: RunContext
    lists: EmployerLists


class EmployerRunState(TypedDict, total=False):
    """Everything a resumed run needs, checkpointed after every node."""

    recipe: str
    run_id: str
    boundary: str  # the per-run fence of untrusted text (injection.untrusted), kept on resume
    question: str  # what is researched, as the events name it
    request: EmployerRequest
    classification: Classification
    screened: str  # why the input was not researched ("" when it was)
    queries: list[str]  # the next attempt's queries
    employer: EmployerState  # seed 000's state (section 13)
    # what Phase 2 has read, across both attempts (gather.Library)
    sources: dict[str, Source]
    evidence: list[Evidence]
    dropped: dict[str, str]
    input_ids: list[str]
    requirement_ids: list[str]
    attempts: list[Attempt]
    trace: list[RoutingStep]
    warnings: list[str]
    # the ledger (``deepresearch/ledger.py``), recorded after every node, restored on resume
    usage: Usage
    fetches: int
    model_errors: list[str]
    search_errors: list[str]
    result: EmployerResult
