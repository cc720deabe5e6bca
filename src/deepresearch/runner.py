"""Starting and resuming runs of any recipe, in named steps: the id checked, the run
announced, the checkpoint store and graph opened, a reply checked, the run's tape chosen,
the ports built from Settings (or taken as given: ``compose.ports``), the run resumed or
begun, the recipe's graph streamed with failures turned into our error tree, and the
outcome told. Checkpoints are written synchronously after every
node, so a run killed at any point resumes from its last completed node with
``resume=True``. Recipes come from the registry; the runner knows them only through
``recipes/base.py``'s protocol.

A new run announces itself (``run_started``) before LangGraph and LangChain load, which
takes about a second: this module and the recipes import them when a graph is built
(issue 19)."""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from deepresearch.core.ids import check_run_id, new_run_id
from deepresearch.core.review import check_reply
from deepresearch.errors import (
    ConfigError,
    DeepResearchError,
    InvalidInput,
    RunError,
    RunNotFound,
)
from deepresearch.events import EventBus, Sink
from deepresearch.llm.redact import redact
from deepresearch.models import Report
from deepresearch.models.event_pauses import InputRequested
from deepresearch.models.event_payloads import RunFailed, RunPausedWarning, RunResumed
from deepresearch.models.pause import INPUT_KINDS, InputRequest
from deepresearch.recipes.registry import DEFAULT_RECIPE, checkpoint_types, get_recipe
from deepresearch.settings import Settings
from deepresearch.settings_groups import SettingsGroups, Storage
from deepresearch.settings_values import Role

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from deepresearch.context import RunContext
    from deepresearch.fetch.base import Fetcher
    from deepresearch.recipes.base import Recipe
    from deepresearch.replay.base import RunTape
    from deepresearch.search.base import SearchProvider

log = logging.getLogger(__name__)
RECURSION_LIMIT = 200
Q = TypeVar("Q", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)


def checkpoint_path(settings: Storage) -> Path:
    from deepresearch.checkpoints import sqlite_checkpoint_path

    return sqlite_checkpoint_path(settings)


async def run_research(
    question: str | None,
    settings: Settings,
    *,
    run_id: str | None = None,
    resume: bool = False,
    sinks: Sequence[Sink] = (),
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    stop_after: str | None = None,
    reply: Any = None,
    reply_to: str | None = None,
) -> Report | InputRequest | None:
    """Run (or resume) one research run and return its report: :func:`run_recipe` with
    the research recipe; an ``InputRequest`` when it waits for a person (answer it with
    ``resume=True, reply=...``).

    ``models``, ``search`` and ``fetcher`` replace the ones Settings would build (tests,
    benchmarks, library users with their own components). ``stop_after`` pauses the run
    after the named stage, checkpointed, and returns None; resume it with ``resume=True``.
    """
    recipe: Recipe[Any, Report] = get_recipe(DEFAULT_RECIPE)
    request = None if resume else recipe.request(question, {})
    return await run_recipe(
        recipe,
        request,
        settings,
        run_id=run_id,
        resume=resume,
        sinks=sinks,
        models=models,
        search=search,
        fetcher=fetcher,
        stop_after=stop_after,
        reply=reply,
        reply_to=reply_to,
    )


async def run_recipe(
    recipe: Recipe[Q, R],
    request: Q | None,
    settings: Settings,
    *,
    run_id: str | None = None,
    resume: bool = False,
    sinks: Sequence[Sink] = (),
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    resources: Mapping[str, Any] | None = None,
    stop_after: str | None = None,
    reply: Any = None,
    reply_to: str | None = None,
    tape: RunTape | None = None,
    owner: str | None = None,
) -> R | InputRequest | None:
    """Run ``recipe`` on ``request`` (from ``recipe.request``), or resume run ``run_id``
    (``request`` None), and return its document; None when ``stop_after`` paused it.
    ``resources`` are the recipe's own (``recipe.resources``); the recipe's per-role
    temperatures apply unless ``settings`` set a temperature. ``tape`` records the run
    (by default, with ``settings.record_runs``, into ``data_dir/recordings/<run id>``) or
    replays one (``compose.replay``).

    A run that needs a person (a LangGraph interrupt: a clarifying question, a plan to
    review) is checkpointed where it stands and returns an ``InputRequest``, after an
    ``input_requested`` event: that is not a failure. ``resume=True`` with ``reply``
    continues it with the answer (checked for what was asked: ``core.review``); a run
    that is not waiting refuses a reply, unless ``reply_to`` names the pause it answers
    and the run is already past it (a service worker taking the job over again): then
    it just resumes.

    ``owner`` is whose run it is: None for the local user, whose runs have a record in
    ``data_dir/runs`` (``runs list``, whichever front end started them) and go to the
    ``local`` library; a service job names its API key's id (the job store keeps it).
    A run that ends with its document is added to its owner's library
    (``compose.keep``)."""
    run_id = _checked_id(run_id, request, resume=resume)
    began = time.monotonic()
    settings = settings.with_role_temperatures(recipe.role_temperatures)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    bus = EventBus(run_id, list(sinks))
    question = None
    if not resume:
        assert request is not None
        question = _announce(recipe, request, settings, search, bus)
    from deepresearch.compose.ports import open_context

    async with AsyncExitStack() as stack:
        if not resume:  # announced: a setup failure from here on ends it as run_failed
            stack.push(_failed_on_error(bus, settings))
        run = await _open_run(stack, recipe, settings, run_id, resume=resume)
        keeper = _Keeper(settings, owner, bus)
        keeper.started(recipe, question)
        stack.push(keeper.on_error)
        waiting, answer = _reply(run_id, run.snapshot, reply, reply_to, resume=resume)
        tape = tape or _tape_for(settings, run_id)  # loads LangChain: after run_started
        ctx = await open_context(
            stack,
            settings,
            bus,
            models,
            search,
            fetcher,
            tape,
            followups=recipe.followups,
            owner=owner,
        )
        ctx.gateway.budget.started = began  # --max-time counts from the run's start
        if resume:
            start, done = _resume(recipe, ctx, run.snapshot, waiting, answer, tape)
            if done is not None:
                return done
        else:
            assert request is not None
            start = _begin(recipe, request, run_id, settings, ctx, tape)
        await _stream(run, start, recipe.context(ctx, resources or {}), stop_after, bus)
        return await _outcome(run, recipe, ctx, tape, stop_after, keeper)


def _checked_id(run_id: str | None, request: BaseModel | None, *, resume: bool) -> str:
    """The run's id, checked before anything is opened or written: a bad id starts nothing
    (the request's question was normalised when the recipe built it)."""
    if resume and not run_id:
        raise RunNotFound("resuming needs the id of the run", hint="pass --resume RUN_ID")
    checked = check_run_id(run_id) if run_id is not None else new_run_id()
    if not resume and request is None:
        raise RunError("nothing to run", hint="pass the question to research")
    return checked


def _announce(
    recipe: Recipe[Q, R],
    request: Q,
    settings: Settings,
    search: SearchProvider | None,
    bus: EventBus,
) -> str:
    """``run_started``, before the ports and the graph are built; the question it names."""
    # the provider the ports will build: its name is the canonical list in settings
    search_name = search.name if search is not None else settings.search
    message, started = recipe.started(request, SettingsGroups.of(settings), search_name)
    bus.emit(started, message=message)
    return started.question


@dataclass(frozen=True)
class _Run:
    """A run's compiled graph, its checkpoint config and the state it stands in."""

    graph: Any
    config: RunnableConfig
    snapshot: Any
    run_id: str
    secrets: tuple[str, ...]


async def _open_run(
    stack: AsyncExitStack,
    recipe: Recipe[Any, Any],
    settings: Settings,
    run_id: str,
    *,
    resume: bool,
) -> _Run:
    """The checkpoint store and the recipe's graph on it; the run's checkpoint, which must
    exist to resume and must not to start."""
    from deepresearch.checkpoints import describe, open_checkpointer

    saver = await stack.enter_async_context(open_checkpointer(settings, checkpoint_types()))
    graph = recipe.build_graph(saver)
    config: RunnableConfig = {
        "configurable": {"thread_id": run_id},
        "recursion_limit": RECURSION_LIMIT,
    }
    snapshot = await graph.aget_state(config)
    values: Mapping[str, Any] = snapshot.values
    if resume and not values:
        raise RunNotFound(
            f"no run {run_id!r} in {describe(settings)}",
            hint="check the id, and that DEEPRESEARCH_DATA_DIR is the one the run used",
        )
    if not resume and values:
        raise ConfigError(
            f"a run with id {run_id!r} already exists",
            hint=f"choose another --run-id, or continue it with --resume {run_id}",
        )
    if values:
        _check_owner(recipe, values, run_id)
    return _Run(graph, config, snapshot, run_id, tuple(settings.secrets()))


def _reply(
    run_id: str, snapshot: Any, reply: Any, reply_to: str | None, *, resume: bool
) -> tuple[InputRequest | None, Any]:
    """What the run waits for, and the checked answer to apply (None: none)."""
    waiting = waiting_request(run_id, snapshot.interrupts)
    if reply is not None:
        if not resume:
            raise RunError("a reply continues a waiting run", hint="pass resume=True")
        if waiting is None and reply_to is None:
            raise ConfigError(
                f"run {run_id!r} is not waiting for input",
                hint=f"see how it stands with: deepresearch report {run_id}",
            )
    # an answer to another pause (the run went past it, or asked again since a worker
    # stored it) is not applied: the run resumes and asks what it asks now
    if reply is not None and waiting is not None and reply_to in (None, waiting.id):
        return waiting, check_reply(waiting, reply)  # a bad answer changes nothing
    return waiting, None


def _tape_for(settings: Settings, run_id: str) -> RunTape:
    """The run's recording (``record_runs``), else no tape."""
    if not settings.record_runs:
        from deepresearch.replay.base import NoTape

        return NoTape()
    from deepresearch.replay.ports import Recorder
    from deepresearch.replay.tape import Tape, recording_folder

    return Recorder(Tape(recording_folder(settings, run_id), secrets=settings.secrets()))


def _resume(
    recipe: Recipe[Q, R],
    ctx: RunContext,
    snapshot: Any,
    waiting: InputRequest | None,
    answer: Any,
    tape: RunTape,
) -> tuple[Any, R | None]:
    """Where a resumed run starts (its ledger restored), or its document when it was
    already complete."""
    from deepresearch.ledger import restore  # LangGraph: loaded only to run

    values: Mapping[str, Any] = snapshot.values
    restore(ctx, values)  # usage, fetches and model errors so far
    ctx.gateway.boundary = values.get("boundary") or ctx.gateway.boundary
    done = recipe.result(values)
    if not snapshot.next and done is not None:
        completion = recipe.completion(done, fetches=ctx.ledger.fetches)
        ctx.bus.emit(completion.completed_event, message="Run was already complete")
        return None, done
    ctx.bus.emit(
        RunResumed(question=values.get("question", ""), next=list(snapshot.next)),
        message=f"Resuming at {', '.join(snapshot.next)}",
    )
    if answer is None:
        return None, None
    from langgraph.types import Command

    assert waiting is not None
    tape.answered(waiting.id, waiting.kind, answer)  # a replay resumes with it, no person
    return Command(resume=answer), None


def _begin(
    recipe: Recipe[Q, R],
    request: Q,
    run_id: str,
    settings: Settings,
    ctx: RunContext,
    tape: RunTape,
) -> dict[str, Any]:
    """A new run's first state; its tape told what the run is (a recording's manifest, a
    replay's recorded boundary)."""
    start = recipe.initial_state(request, run_id)
    tape.begin(
        run_id=run_id,
        recipe=recipe.name,
        request=request,
        settings=settings,
        gateway=ctx.gateway,
        search=ctx.search,
        council=ctx.council_models,
    )
    start["boundary"] = ctx.gateway.boundary  # the fence of untrusted text, kept on resume
    return start


async def _stream(
    run: _Run, start: Any, context: Any, stop_after: str | None, bus: EventBus
) -> None:
    """The graph, run from ``start`` until it ends, pauses or fails (as our error tree)."""
    try:
        async for _ in run.graph.astream(
            start,
            run.config,
            context=context,
            durability="sync",
            stream_mode="updates",
            interrupt_after=[stop_after] if stop_after else None,
        ):
            pass
    except DeepResearchError as exc:
        bus.emit(RunFailed(error=type(exc).__name__), message=redact(str(exc), run.secrets))
        raise
    except Exception as exc:
        message = f"the run failed unexpectedly ({type(exc).__name__})"
        bus.emit(RunFailed(error=type(exc).__name__), message=message)
        raise RunError(message, hint=f"resume it with --resume {run.run_id}") from exc


async def _outcome(
    run: _Run,
    recipe: Recipe[Q, R],
    ctx: RunContext,
    tape: RunTape,
    stop_after: str | None,
    keeper: _Keeper,
) -> R | InputRequest | None:
    """How the run stands after streaming: waiting for a person, paused, or complete
    (kept in its owner's library before ``run_completed`` says so)."""
    final = await run.graph.aget_state(run.config)
    request_ = waiting_request(run.run_id, final.interrupts)
    if request_ is not None:  # a person's turn: checkpointed, not failed
        keeper.note(status="awaiting_input")
        tape.waited()
        ctx.bus.emit(
            InputRequested.model_validate(request_.event_data()),
            stage=next(iter(final.next), None),
            message=_asking(request_),
        )
        return request_
    document = recipe.result(final.values)
    if document is None or final.next:
        ctx.bus.emit(
            RunPausedWarning(code="run_paused", next=list(final.next)),
            message=f"Run paused after {stop_after}",
        )
        return None
    tape.finish(document)
    completion = recipe.completion(document, fetches=ctx.ledger.fetches)
    await keeper.finished(recipe, final.values, completion.kind)
    gateway = ctx.gateway
    budget = gateway.budget  # which budget ended the run (None: none did), and spend
    completed = completion.completed_event
    if budget.limits.any:
        completed = completed.model_copy(
            update={"budget": budget.ended_by, "spend": budget.view(gateway.usage)}
        )
    ctx.bus.emit(completed, message=completion.message)
    return document


class _Keeper:
    """What the runner keeps of a run besides its checkpoint: the local user's run record
    (``owner`` None: created when the front end wrote none, so ``runs list`` shows runs
    started from the Python library too, and its status noted) and, once finished, the
    run in its owner's library."""

    def __init__(self, settings: Settings, owner: str | None, bus: EventBus) -> None:
        self.settings = settings
        self.owner = owner
        self.bus = bus

    def started(self, recipe: Recipe[Any, Any], question: str | None) -> None:
        """A new run (``question``): its record, unless its front end wrote one."""
        if self.owner is not None or question is None:
            return
        run_id = self.bus.run_id
        if load_run_record(self.settings, run_id) is None:
            self.note(
                recipe=recipe.name,
                question=question,
                started=datetime.now(UTC).isoformat(),
                options={},
                files={},
                status="running",
                pid=os.getpid(),
            )

    def note(self, **fields: object) -> None:
        """Merge ``fields`` into the local run's record (a record that cannot be written
        costs the run nothing)."""
        if self.owner is not None:
            return
        try:
            update_run_record(self.settings, self.bus.run_id, **fields)
        except OSError as exc:
            log.warning("could not update the record of run %s (%s)", self.bus.run_id, exc)

    async def finished(self, recipe: Recipe[Any, Any], values: Any, kind: str) -> None:
        import asyncio

        from deepresearch.compose.keep import keep_in_library
        from deepresearch.models.library import LOCAL_OWNER

        owner = self.owner if self.owner is not None else LOCAL_OWNER
        history = list(self.bus.history)
        await asyncio.to_thread(keep_in_library, self.settings, owner, recipe, values, history)
        now = datetime.now(UTC).isoformat()
        self.note(status="complete", kind=kind, finished=now, error=None)

    def on_error(self, exc_type: object, exc: BaseException | None, tb: object) -> bool:
        """An exit callback: a run that failed says so in its record."""
        if isinstance(exc, DeepResearchError):
            error = redact(exc.message, self.settings.secrets())
            self.note(status="failed", error=error, finished=datetime.now(UTC).isoformat())
        return False


def update_run_record(settings: Storage, run_id: str, **fields: object) -> None:
    """Merge ``fields`` into the run's record (created when missing), rewritten whole
    through a temporary file, so a reader never sees half of one."""
    path = run_record_path(settings, run_id)
    record: dict[str, object] = load_run_record(settings, run_id) or {"run_id": run_id}
    record.update(fields)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".record-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(record, out, indent=2, default=str)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _asking(request: InputRequest) -> str:
    """The ``input_requested`` event's message."""
    if request.kind == "clarification":
        return request.question
    if request.kind == "findings":
        return "Review the findings: approve them, drop some, or name a gap"
    return "Review the plan: approve or edit it"


def waiting_request(run_id: str, interrupts: Sequence[Any]) -> InputRequest | None:
    """What a paused run asks (its first pending interrupt), or None."""
    for pending in interrupts:
        value = pending.value
        if isinstance(value, dict) and value.get("kind") in INPUT_KINDS:
            return InputRequest(run_id=run_id, id=str(pending.id), **value)
    return None


async def pending_input(settings: Storage, run_id: str) -> InputRequest | None:
    """What run ``run_id`` waits for, from its checkpoint; None when it waits for nothing."""
    from deepresearch.checkpoints import open_checkpointer

    check_run_id(run_id)
    if not settings.database_url and not checkpoint_path(settings).is_file():
        raise RunNotFound(f"no runs in {settings.data_dir}", hint="check DEEPRESEARCH_DATA_DIR")
    async with open_checkpointer(settings, checkpoint_types()) as saver:
        recipe = await _recipe_of(saver, run_id)
        if recipe is None:
            raise RunNotFound(f"no run {run_id!r} in {settings.data_dir}", hint="check the run id")
        snapshot = await recipe.build_graph(saver).aget_state(
            {"configurable": {"thread_id": run_id}}
        )
    return waiting_request(run_id, snapshot.interrupts)


def _check_owner(recipe: Recipe[Any, Any], values: Mapping[str, Any], run_id: str) -> None:
    """A run id names one recipe's run: another recipe may not continue it."""
    owner = get_recipe(values.get("recipe") or DEFAULT_RECIPE)
    if owner is not recipe:
        raise RunNotFound(
            f"run {run_id!r} belongs to recipe {owner.name!r}, not {recipe.name!r}",
            hint=f"continue it with recipe {owner.name!r}, or choose another run id",
        )


def _failed_on_error(bus: EventBus, settings: Settings) -> Callable[..., bool]:
    """An exit callback that ends an announced run with ``run_failed`` when setting it up
    raises (a missing key, an id already used), unless the run already said how it ended.
    A cancellation or Ctrl-C is not a failure: whoever stopped the run says so."""

    def on_exit(exc_type: object, exc: BaseException | None, tb: object) -> bool:
        ended = bool(bus.history) and bus.history[-1].type in ("run_failed", "run_completed")
        if isinstance(exc, Exception) and not ended:
            if isinstance(exc, DeepResearchError):
                message = redact(str(exc), settings.secrets())
            else:
                message = f"the run failed unexpectedly ({type(exc).__name__})"
            bus.emit(RunFailed(error=type(exc).__name__), message=message)
        return False  # never swallow the error

    return on_exit


def run_record_path(settings: Storage, run_id: str) -> Path:
    """``data_dir/runs/<run_id>.json``, for a valid run id only, and checked to stay
    inside that folder whatever the id (defence in depth behind ``check_run_id``)."""
    folder = (settings.data_dir / "runs").resolve()
    path = (folder / f"{check_run_id(run_id)}.json").resolve()
    if path.parent != folder:
        raise InvalidInput(f"run {run_id!r} would be stored outside {folder}")
    return path


def save_run_record(
    settings: Settings,
    run_id: str,
    question: str,
    options: Mapping[str, object],
    *,
    recipe: str = DEFAULT_RECIPE,
    files: Mapping[str, str] | None = None,
) -> None:
    """Remember what a run was started with (no secrets): its Settings overrides and the
    files its recipe read, so ``--resume`` can reuse them."""
    path = run_record_path(settings, run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "run_id": run_id,
        "recipe": recipe,
        "question": question,
        "started": datetime.now(UTC).isoformat(),
        "options": options,
        "files": dict(files or {}),
    }
    path.write_text(json.dumps(record, indent=2, default=str), encoding="utf-8")


def load_run_record(settings: Storage, run_id: str) -> dict[str, object] | None:
    """What the run was started with, or None when there is no (readable) record."""
    path = run_record_path(settings, run_id)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


async def load_result(settings: Settings, run_id: str) -> tuple[Recipe[Any, Any], Any]:
    """The recipe of run ``run_id`` and the document of the run (a Report, an
    EmployerResult...) from its checkpoint; the document is None while the run is
    unfinished."""
    from deepresearch.checkpoints import open_checkpointer

    check_run_id(run_id)
    if not settings.database_url and not checkpoint_path(settings).is_file():
        raise RunNotFound(f"no runs in {settings.data_dir}", hint="check DEEPRESEARCH_DATA_DIR")
    async with open_checkpointer(settings, checkpoint_types()) as saver:
        recipe = await _recipe_of(saver, run_id)
        if recipe is None:
            raise RunNotFound(f"no run {run_id!r} in {settings.data_dir}", hint="check the run id")
        snapshot = await recipe.build_graph(saver).aget_state(
            {"configurable": {"thread_id": run_id}}
        )
    if snapshot.next:
        return recipe, None
    return recipe, recipe.result(snapshot.values)


async def load_report(settings: Settings, run_id: str) -> Report | None:
    """The report of a finished research run from its checkpoint; None while it is
    unfinished."""
    recipe, document = await load_result(settings, run_id)
    _check_owner(get_recipe(DEFAULT_RECIPE), {"recipe": recipe.name}, run_id)
    return document if isinstance(document, Report) else None


async def _recipe_of(saver: BaseCheckpointSaver[str], run_id: str) -> Recipe[Any, Any] | None:
    """Whose run ``run_id`` is (every recipe's state has a ``recipe`` key), or None."""
    snapshot = (
        await get_recipe(DEFAULT_RECIPE)
        .build_graph(saver)
        .aget_state({"configurable": {"thread_id": run_id}})
    )
    if not snapshot.values:
        return None
    return get_recipe(snapshot.values.get("recipe") or DEFAULT_RECIPE)
