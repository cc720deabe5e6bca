"""What a recipe is: a research flow the runner can start, checkpoint, resume and render,
whatever its graph. The research run is one (``research``), seed 000's employer profile
another (``employer``); front ends (CLI, library, service, web page) know recipes only
through this protocol and the registry (``recipes/registry.py``).

A recipe supplies:

- ``request(question, options)``: the validated request (its own pydantic model), from the
  question and the recipe's options (``options_model``: the fields a front end may pass
  beyond Settings); a bad request raises ``ConfigError`` with the reason;
- ``build_graph(checkpointer)``: a compiled LangGraph graph; ``initial_state`` its first
  state; ``context`` what the nodes get through LangGraph's Runtime (the run's ports,
  plus the recipe's own resources); ``checkpoint_types`` what its state may contain;
- ``result(values)``: the document of a finished run (a ``Report``, an ``EmployerResult``);
  ``completion`` how it reads to a front end; ``to_json`` it as JSON (its model, plus what
  the recipe adds); ``document`` it as a page-neutral ``models.document.Document``, which
  ``export.formats`` draws in every other format (markdown, HTML, PDF, DOCX...), so every
  recipe has every format of ``export.formats.FORMATS`` without knowing about any;
- ``role_temperatures``: the recipe's per-role sampling temperatures (seed 000: synthesis
  0.3, judging 0.1), used unless the user set a temperature;
- ``multiline_question``: whether its question keeps line breaks when normalised (the
  employer's may be a pasted job posting).
- ``library_entry(values, fetched_at)``: what a finished run adds to its owner's library
  (issue 25; docs/library.md), or None for a recipe whose runs are not kept there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel

from deepresearch.models import Evidence, Report
from deepresearch.models.event_payloads import RunCompleted, RunStarted
from deepresearch.settings_groups import SettingsGroups
from deepresearch.settings_values import Role

if TYPE_CHECKING:  # LangGraph loads when a graph is built, not when a recipe is looked up
    from langchain_core.language_models import BaseChatModel
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph

    from deepresearch.context import RunContext, ThreadStore
    from deepresearch.models import EvalResult
    from deepresearch.models.document import Document
    from deepresearch.models.library import LibraryEntry
    from deepresearch.models.thread import Turn
    from deepresearch.settings_groups import ModelSettings, Storage

Q = TypeVar("Q", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class Completion:
    """How a finished run reads to a front end.

    ``complete`` is False when the run ended without its product (a research run that
    aborted, an employer run that exited early): the CLI exits with code 3.
    ``completed_event`` is the payload of the ``run_completed`` event."""

    kind: str
    complete: bool
    headline: str
    message: str
    evidence: list[Evidence]
    completed_event: RunCompleted
    notes: tuple[str, ...] = ()
    report: Report | None = None  # the research report, for the service's sources table


class Followups(Protocol):
    """What a recipe whose runs a question can follow up (a thread of runs) offers: the
    composition root a thread store for the run, the front ends a check of the followed
    run and the thread's turns. Front ends reach it through the registry
    (``registry.followups()``), never by importing the recipe."""

    def store(self, storage: Storage) -> ThreadStore:
        """The checkpoint store's threads, which a follow-up reads and extends."""
        ...

    async def check_parent(self, storage: Storage, run_id: str) -> None:
        """A clear error when run ``run_id`` cannot be followed up."""
        ...

    async def turns(self, storage: Storage, run_id: str) -> list[Turn]:
        """Every turn of the thread run ``run_id`` belongs to, first to last."""
        ...


class Evaluator(Protocol):
    """A finished run evaluated and the evaluation stored with it (``deepresearch eval``)."""

    async def __call__(
        self,
        storage: Storage,
        model_settings: ModelSettings,
        run_id: str,
        *,
        secrets: Sequence[str] = (),
        judge_model: str | None = None,
        models: Mapping[Role, BaseChatModel | None] | None = None,
    ) -> EvalResult: ...


class Recipe(Protocol[Q, R]):
    """A research flow on the shared runner; see the module docstring."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def options_model(self) -> type[BaseModel]: ...
    @property
    def request_model(self) -> type[Q]: ...
    @property
    def result_model(self) -> type[R]: ...
    @property
    def checkpoint_types(self) -> Sequence[tuple[str, str]]: ...
    @property
    def role_temperatures(self) -> Mapping[Role, float]: ...
    @property
    def followups(self) -> Followups | None:
        """Follow-up turns, for a recipe whose runs have them (else None)."""
        ...

    @property
    def evaluator(self) -> Evaluator | None:
        """How a finished run is evaluated, for a recipe that evaluates (else None)."""
        ...

    @property
    def multiline_question(self) -> bool:
        """Whether the question keeps its line breaks (a pasted document) when normalised."""
        ...

    def request(self, question: str | None, options: Mapping[str, Any]) -> Q:
        """The validated request; raises ConfigError saying what is wrong."""
        ...

    def resources(self, files: Mapping[str, Path]) -> dict[str, Any]:
        """Resources a local front end loads from files (never from an API request), by
        name; raises ConfigError for a file that cannot be used."""
        ...

    def build_graph(
        self, checkpointer: BaseCheckpointSaver[str] | None
    ) -> CompiledStateGraph[Any, Any, Any, Any]: ...

    def initial_state(self, request: Q, run_id: str) -> dict[str, Any]: ...

    def context(self, run: RunContext, resources: Mapping[str, Any]) -> Any:
        """What the graph's nodes get as ``runtime.context``."""
        ...

    def started(self, request: Q, settings: SettingsGroups, search: str) -> tuple[str, RunStarted]:
        """The ``run_started`` event's message and payload (emitted before the ports and
        the graph are built, so it must not need them; ``search`` names the provider(s))."""
        ...

    def result(self, values: Mapping[str, Any]) -> R | None:
        """The document in a finished run's state, or None."""
        ...

    def completion(self, result: R, *, fetches: int) -> Completion: ...

    def to_json(self, result: R) -> str:
        """``result`` as JSON: the one format not drawn from its document."""
        ...

    def document(self, result: R) -> Document:
        """``result`` as a page-neutral document, which every other format draws
        (``export.formats``)."""
        ...

    def library_entry(
        self, values: Mapping[str, Any], fetched_at: Mapping[str, datetime]
    ) -> LibraryEntry | None:
        """What a finished run (its final state ``values``) adds to its owner's library
        (issue 25), or None for a recipe whose runs are not kept there; ``fetched_at``
        says when the run read each URL."""
        ...
