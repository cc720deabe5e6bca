"""The employer recipe as the registry sees it: its request, graph, context, result and
renderings (``recipes/base.py``'s protocol)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from deepresearch.errors import ConfigError
from deepresearch.models import Usage
from deepresearch.models.event_payloads import RunCompleted, RunStarted
from deepresearch.recipes.base import Completion, Recipe
from deepresearch.recipes.employer import events as _events  # noqa: F401  (registers its payloads)
from deepresearch.recipes.employer.lists import EmployerLists, default_lists, load_employer_lists
from deepresearch.recipes.employer.models import EmployerOptions, EmployerRequest, EmployerResult
from deepresearch.settings_groups import SettingsGroups
from deepresearch.settings_values import Role

if TYPE_CHECKING:  # LangGraph loads when the graph is built (run_started comes first)
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph

    from deepresearch.context import RunContext
    from deepresearch.models.document import Document
    from deepresearch.models.library import LibraryEntry
    from deepresearch.recipes.employer.state import EmployerContext

#: the resources a local front end may load from a file: the lists (``--lists FILE``)
LISTS = "lists"


class EmployerRecipe:
    name = "employer"
    title = "Employer"
    description = "A profile, for a job seeker, of the company the question names (seed 000)."
    options_model = EmployerOptions
    request_model = EmployerRequest
    result_model = EmployerResult
    #: seed 000: SYNTHESIS_TEMPERATURE 0.3 (the researcher writes the profile),
    #: RERANKER_TEMPERATURE 0.1 (the judge); classification keeps the engine's default
    role_temperatures: Mapping[Role, float] = {"researcher": 0.3, "judge": 0.1}
    multiline_question = True  # the question may be a pasted job posting
    followups = None  # a profile is not followed up
    evaluator = None  # nor evaluated: the firewall's checks are its own

    def request(self, question: str | None, options: Mapping[str, Any]) -> EmployerRequest:
        try:
            return EmployerRequest.model_validate({**options, "company": question})
        except ValidationError as exc:
            problems = []
            for error in exc.errors():
                where = ".".join(str(part) for part in error["loc"])
                message = error["msg"].removeprefix("Value error, ")
                problems.append(f"{where}: {message}" if where else message)
            raise ConfigError(
                "; ".join(problems), hint="see docs/employer.md for the recipe's options"
            ) from None

    def resources(self, files: Mapping[str, Path]) -> dict[str, Any]:
        unknown = set(files) - {LISTS}
        if unknown:
            raise ConfigError(
                f"{', '.join(sorted(unknown))}: not a file recipe {self.name!r} reads",
                hint=f"it reads: {LISTS}",
            )
        return {LISTS: load_employer_lists(files[LISTS])} if LISTS in files else {}

    def build_graph(
        self, checkpointer: BaseCheckpointSaver[str] | None
    ) -> CompiledStateGraph[Any, Any, Any, Any]:
        from deepresearch.recipes.employer.graph import build_graph

        return build_graph(checkpointer)

    @property
    def checkpoint_types(self) -> tuple[tuple[str, str], ...]:
        from deepresearch.recipes.employer.graph import CHECKPOINT_TYPES

        return tuple(CHECKPOINT_TYPES)

    def initial_state(self, request: EmployerRequest, run_id: str) -> dict[str, Any]:
        return {
            "recipe": self.name,
            "run_id": run_id,
            "question": _describe(request),
            "request": request,
        }

    def context(self, run: RunContext, resources: Mapping[str, Any]) -> EmployerContext:
        lists = resources.get(LISTS)
        if lists is None:
            lists = default_lists()
        if not isinstance(lists, EmployerLists):
            raise ConfigError(
                "the employer lists must be an EmployerLists",
                hint="build them with deepresearch.recipes.employer.load_employer_lists(FILE)",
            )
        from deepresearch.recipes.employer.state import EmployerContext

        return EmployerContext(run=run, lists=lists)

    def started(
        self, request: EmployerRequest, settings: SettingsGroups, search: str
    ) -> tuple[str, RunStarted]:
        return "Employer research started", RunStarted(
            question=_describe(request),
            model=settings.models.model,
            search=search,
            recipe=self.name,
        )

    def result(self, values: Mapping[str, Any]) -> EmployerResult | None:
        document = values.get("result")
        if not isinstance(document, EmployerResult):
            return None
        usage = values.get("usage")  # the run's, the ledger's (recorded after every node)
        return (
            document.model_copy(update={"usage": usage}) if isinstance(usage, Usage) else document
        )

    def completion(self, result: EmployerResult, *, fetches: int) -> Completion:
        early = result.early_exit
        return Completion(
            kind=self.name,
            complete=not early,
            headline="early exit (no profile)" if early else "employer profile",
            message="Employer research finished",
            evidence=list(result.evidence),
            completed_event=RunCompleted(
                kind=self.name,
                outcome=result.outcome,
                sources=len(result.sources),
                evidence=len(result.evidence),
                fetches=fetches,
                input_tokens=result.usage.input_tokens,
                output_tokens=result.usage.output_tokens,
            ),
            notes=(f"reason: {result.reranker.early_exit_reason}",) if early else (),
        )

    def to_json(self, result: EmployerResult) -> str:
        return result.model_dump_json(indent=2) + "\n"

    def document(self, result: EmployerResult) -> Document:
        from deepresearch.recipes.employer.document import employer_document  # exports only

        return employer_document(result)

    def library_entry(
        self, values: Mapping[str, Any], fetched_at: Mapping[str, datetime]
    ) -> LibraryEntry | None:
        """Employer profiles are not kept in the library (yet): their facts are not
        verified quotes of stored pages."""
        return None


def _describe(request: EmployerRequest) -> str:
    what = request.company or "(from the job description)"
    return f"{what} — {request.role}" if request.role else what


RECIPE: Recipe[EmployerRequest, EmployerResult] = EmployerRecipe()
