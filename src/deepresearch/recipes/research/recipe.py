"""The research recipe: a question in, a cited report out, through the research graph
(``graph.py``: intake, plan, research waves, gate, reflect, write, audit)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from deepresearch.core.budget import with_budget_note
from deepresearch.core.ids import run_id_problem
from deepresearch.core.intake import refuse_unresearchable
from deepresearch.core.library_entry import library_entry
from deepresearch.core.library_reuse import marked, read_times
from deepresearch.core.sanitize import normalize_question
from deepresearch.errors import ConfigError, RunError
from deepresearch.export.markdown import to_markdown
from deepresearch.export.report_render import to_json
from deepresearch.models import Report, Usage
from deepresearch.models.event_payloads import RunCompleted, RunStarted
from deepresearch.models.library import LibraryReuse
from deepresearch.models.report import REPLY_KINDS
from deepresearch.models.thread import Thread
from deepresearch.recipes.base import Completion, Evaluator, Followups, Recipe
from deepresearch.settings_groups import SettingsGroups
from deepresearch.settings_values import Role

if TYPE_CHECKING:  # LangGraph loads when the graph is built (run_started comes first)
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph

    from deepresearch.context import RunContext
    from deepresearch.models.document import Document
    from deepresearch.models.library import LibraryEntry


class ResearchOptions(BaseModel):
    """The research run's one option of its own: the run a question follows up (depth,
    limits, models and search are Settings fields)."""

    model_config = ConfigDict(extra="forbid")

    followup_of: str | None = Field(
        default=None,
        description="a finished research run this question follows up: the new run reuses "
        "its pages and verified evidence unless the topic changed",
    )


class ResearchQuestion(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str
    followup_of: str | None = None


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
        foreign = set(options) - set(ResearchOptions.model_fields)
        if foreign:
            raise ConfigError(
                f"{', '.join(sorted(foreign))}: not an option of recipe {self.name!r}",
                hint="research runs take followup_of and Settings fields (depth, search, model...)",
            )
        if not question or not question.strip():
            raise RunError("the question is empty", hint="pass the question to research")
        parent = options.get("followup_of")
        if parent is not None:
            problem = run_id_problem(parent) if isinstance(parent, str) else "not a run id"
            if problem is not None:
                raise ConfigError(f"followup_of: {problem}", hint="name a finished research run")
        normalized = normalize_question(question)
        refuse_unresearchable(normalized)  # before anything runs, whichever front end asks
        return ResearchQuestion(question=normalized, followup_of=parent)

    def resources(self, files: Mapping[str, Path]) -> dict[str, Any]:
        if files:
            raise ConfigError(f"{', '.join(sorted(files))}: not a file recipe {self.name!r} reads")
        return {}

    def build_graph(
        self, checkpointer: BaseCheckpointSaver[str] | None
    ) -> CompiledStateGraph[Any, Any, Any, Any]:
        from deepresearch.recipes.research.graph import build_graph

        return build_graph(checkpointer)

    @property
    def checkpoint_types(self) -> tuple[tuple[str, str], ...]:
        from deepresearch.recipes.research.graph import CHECKPOINT_TYPES

        return tuple(CHECKPOINT_TYPES)

    def initial_state(self, request: ResearchQuestion, run_id: str) -> dict[str, Any]:
        state = {"recipe": self.name, "run_id": run_id, "question": request.question}
        if request.followup_of:
            state["followup_of"] = request.followup_of
        return state

    def context(self, run: RunContext, resources: Mapping[str, Any]) -> RunContext:
        return run

    @property
    def followups(self) -> Followups:
        from deepresearch.recipes.research.threads import (
            ResearchFollowups,  # with the graph, to run
        )

        return ResearchFollowups()

    @property
    def evaluator(self) -> Evaluator:
        from deepresearch.recipes.research.evaluation import evaluate_run  # with the graph, to run

        return evaluate_run

    def started(
        self, request: ResearchQuestion, settings: SettingsGroups, search: str
    ) -> tuple[str, RunStarted]:
        return "Research started", RunStarted(
            question=request.question,
            followup_of=request.followup_of or None,
            model=settings.models.model,
            search=search,
            depth=settings.limits.depth,
        )

    def result(self, values: Mapping[str, Any]) -> Report | None:
        """The report, with the run's usage (the ledger's, recorded after every node)."""
        report = values.get("report")
        if not isinstance(report, Report):
            return None
        update: dict[str, Any] = {
            # the budget that ended the run, whichever stage it ended in
            "limitations": with_budget_note(report.limitations, values.get("model_errors") or [])
        }
        usage = values.get("usage")
        if isinstance(usage, Usage):
            update["usage"] = usage
        thread = values.get("thread")
        if isinstance(thread, Thread):  # a follow-up says where it sits in its thread
            update["followup"] = thread.info
        reused = values.get("library")
        if isinstance(reused, LibraryReuse):  # what came from the library, and how old
            update["library"] = reused
        sources = values.get("sources") or {}
        if any(source.library_run for source in sources.values()):
            update["sources"] = marked(report.sources, sources)
        return report.model_copy(update=update)

    def completion(self, result: Report, *, fetches: int) -> Completion:
        notes: tuple[str, ...] = ()
        if result.kind in REPLY_KINDS and result.summary:
            notes = (result.summary[0].text,)
        return Completion(
            kind=result.kind,
            complete=result.kind != "abort",
            headline=f"{result.kind} report",
            message="Research finished",
            evidence=list(result.evidence),
            completed_event=RunCompleted(
                kind=result.kind,
                sources=len(result.sources),
                evidence=len(result.evidence),
                fetches=fetches,
                input_tokens=result.usage.input_tokens,
                output_tokens=result.usage.output_tokens,
                cost_usd=round(result.usage.cost_usd, 6),
            ),
            notes=notes,
            report=result,
        )

    def to_json(self, result: Report) -> str:
        return to_json(result)

    def library_entry(
        self, values: Mapping[str, Any], fetched_at: Mapping[str, datetime]
    ) -> LibraryEntry | None:
        """The report, its verified quotes and claims and the pages they quote."""
        report = self.result(values)
        if report is None:
            return None
        sources = values.get("sources") or {}
        # a page taken from the library was read when the library read it
        fetched_at = {**fetched_at, **read_times(sources)}
        return library_entry(
            report,
            sources,
            recipe=self.name,
            markdown=to_markdown(self.document(report)),
            finished_at=report.created_at or datetime.now(UTC),
            fetched_at=fetched_at,
        )

    def document(self, result: Report) -> Document:
        from deepresearch.export.report_document import report_document  # for the exports only

        return report_document(result)


RECIPE: Recipe[ResearchQuestion, Report] = ResearchRecipe()
