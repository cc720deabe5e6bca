"""The employer recipe's event payloads (seed 000, section 15): its phases, its tool calls,
observations and reasoning, each phase's result and the routing decisions. Each class
registers itself in the event registry (``models.event_registry``) when the recipe
registry loads the recipe, so the event schema and docs/events.md cover them with the
core types'."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from deepresearch.models.event_registry import Payload
from deepresearch.recipes.employer.models import (
    Action,
    Classification,
    DataQualityTier,
    EvaluatedBy,
    Phase,
    PrunedData,
    ResearchQualityTier,
    RiskLevel,
    RoutingStep,
    SynthesizedBy,
    Verifiability,
)


class PhaseStarted(Payload):
    """A phase of the recipe began."""

    event_type = "phase"
    stages = "a recipe's phase (employer: connecting, deep_research, research_reranker)"
    phase: Phase
    attempt: int | None = Field(default=None, description="deep_research: which attempt")
    queries: list[str] | None = Field(default=None, description="deep_research: its searches")


class SearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str


class _Thought(Payload):
    event_type = "thought"
    shapes_by = "kind"
    stages = "deep_research, research_reranker"


class ToolCall(_Thought):
    """The recipe calls a tool."""

    stages = "deep_research"
    kind: Literal["tool_call"]
    tool: Literal["web_search"]
    input: SearchInput


class Observation(_Thought):
    """What a tool call found."""

    stages = "deep_research"
    kind: Literal["observation"]
    tool: Literal["web_search"]
    query: str
    evidence: list[str] = Field(description="the ids of the verified passages it gave")
    sources: list[str] = Field(description="the ids of the sources they came from")
    hits: int = Field(description="search results")


class Reasoning(_Thought):
    """A step of the recipe's reasoning; the reranker's carries its first assessment."""

    kind: Literal["reasoning"]
    data_quality_tier: DataQualityTier | None = None
    preliminary_tier: ResearchQualityTier | None = None
    risk_level: RiskLevel | None = None
    patterns_detected: list[str] | None = Field(
        default=None, description="the bad-data patterns found"
    )


class _PhaseComplete(Payload):
    event_type = "phase_complete"
    shapes_by = "phase"


class ConnectingComplete(Classification, _PhaseComplete):
    """Phase 1's classification of the input."""

    stages = "connecting"
    phase: Literal["connecting"]


class ResearchComplete(_PhaseComplete):
    """An attempt of Phase 2 ended: what the profile holds."""

    stages = "deep_research"
    phase: Literal["deep_research"]
    attempt: int
    technologies: int
    requirements: int
    culture_signals: int
    synthesized_by: SynthesizedBy
    unsupported: int = Field(description="profile items no verified passage supports")


class RerankerComplete(_PhaseComplete):
    """Phase 2B's verdict on the research."""

    stages = "research_reranker"
    phase: Literal["research_reranker"]
    data_quality_tier: DataQualityTier
    research_quality_tier: ResearchQualityTier
    data_confidence_score: int
    recommended_action: Action
    company_verifiability: Verifiability
    quality_flags: list[str]
    pruned: PrunedData = Field(description="what the reranker removed from the profile")
    evaluated_by: EvaluatedBy


class RouteDecided(RoutingStep, Payload):
    """Where the recipe goes after the reranker, and the state it changes (seed 000,
    section 8)."""

    event_type = "route_decided"
    stages = "research_reranker"
