"""The research recipe: a question in, a cited report out, through the research graph
(``graph.py``: intake, plan, research waves, gate, reflect, write, audit)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from deepresearch.core.render import render
from deepresearch.core.sanitize import normalize_question
from deepresearch.errors import ConfigError, RunError
from deepresearch.models import Report, Usage
from deepresearch.recipes.base import Completion, Recipe
from deepresearch.settings import Role, Settings

if TYPE_CHECKING:  # LangGraph loads when the graph is built (run_started comes first)
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph

    from deepresearch.context import RunContext

#: report kinds whose first summary line is a reply to the user, not research
_REPLIES = ("chitchat", "refusal", "clarification")


class ResearchOptions(BaseModel):
    """The research run has no options of its own: depth, limits, models and search are
    Settings fields."""

    model_config = ConfigDict(extra="forbid")


class ResearchQuestion(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str


class ResearchRecipe:
    name = "research"
    title = "Research"
    description = "A cited report on a question: plan, search, read, verify, write, audit."
    options_model = ResearchOptions
    request_model = ResearchQuestion
    result_model = Report
    role_temperatures: Mapping[Role, float] = {}
    multiline_question = False

    def request(self, question: str | None, options: Mapping[str, Any]) -> ResearchQuestion:
        if options:
            raise ConfigError(
                f"{', '.join(sorted(options))}: not an option of recipe {self.name!r}",
                hint="research runs take Settings fields (depth, search, model...) only",
            )
        if not question or not question.strip():
            raise RunError("the question is empty", hint="pass the question to research")
        return ResearchQuestion(question=normalize_question(question))

    def resources(self, files: Mapping[str, Path]) -> dict[str, Any]:
        if files:
            raise ConfigError(f"{', '.join(sorted(files))}: not a file recipe {self.name!r} reads")
        return {}

    def build_graph(
        self, checkpointer: BaseCheckpointSaver[str] | None
    ) -> CompiledStateGraph[Any, Any, Any, Any]:
        from deepresearch.graph import build_graph

        return build_graph(checkpointer)

    @property
    def checkpoint_types(self) -> tuple[tuple[str, str], ...]:
        from deepresearch.graph import CHECKPOINT_TYPES

        return tuple(CHECKPOINT_TYPES)

    def initial_state(self, request: ResearchQuestion, run_id: str) -> dict[str, Any]:
        return {"recipe": self.name, "run_id": run_id, "question": request.question}

    def context(self, run: RunContext, resources: Mapping[str, Any]) -> RunContext:
        return run

    def started(
        self, request: ResearchQuestion, settings: Settings, search: str
    ) -> tuple[str, dict[str, Any]]:
        return "Research started", {
            "question": request.question,
            "model": settings.model,
            "search": search,
            "depth": settings.depth,
        }

    def result(self, values: Mapping[str, Any]) -> Report | None:
        """The report, with the run's usage (the ledger's, recorded after every node)."""
        report = values.get("report")
        if not isinstance(report, Report):
            return None
        usage = values.get("usage")
        return report.model_copy(update={"usage": usage}) if isinstance(usage, Usage) else report

    def completion(self, result: Report, *, fetches: int) -> Completion:
        notes: tuple[str, ...] = ()
        if result.kind in _REPLIES and result.summary:
            notes = (result.summary[0].text,)
        return Completion(
            kind=result.kind,
            complete=result.kind != "abort",
            headline=f"{result.kind} report",
            message="Research finished",
            evidence=list(result.evidence),
            completed_event={
                "kind": result.kind,
                "sources": len(result.sources),
                "evidence": len(result.evidence),
                "fetches": fetches,
                "input_tokens": result.usage.input_tokens,
                "output_tokens": result.usage.output_tokens,
            },
            notes=notes,
            report=result,
        )

    def render(self, result: Report, fmt: str) -> str:
        return render(result, fmt)


RECIPE: Recipe[ResearchQuestion, Report] = ResearchRecipe()
