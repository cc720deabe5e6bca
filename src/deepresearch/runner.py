"""Starting and resuming runs. The runner builds the ports from Settings (or takes the
ones it is given), opens the checkpoint store, streams the graph, and turns failures into
our error tree. Checkpoints are written synchronously after every stage, so a run killed
at any point resumes from its last completed stage with ``resume=True``.

A new run announces itself (``run_started``) before LangGraph and LangChain load, which
takes about a second: this module imports them inside ``run_research`` (issue 19)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from deepresearch.core.ids import check_run_id, new_run_id
from deepresearch.core.sanitize import normalize_question
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
from deepresearch.settings import Role, Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.runnables import RunnableConfig

    from deepresearch.fetch.base import Fetcher
    from deepresearch.search.base import SearchProvider
    from deepresearch.state import RunState

RECURSION_LIMIT = 200


def checkpoint_path(settings: Settings) -> Path:
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
) -> Report | None:
    """Run (or resume) one research run and return its report.

    ``models``, ``search`` and ``fetcher`` replace the ones Settings would build (tests,
    benchmarks, library users with their own components). ``stop_after`` pauses the run
    after the named stage, checkpointed, and returns None; resume it with ``resume=True``.
    """
    if resume and not run_id:
        raise RunNotFound("resuming needs the id of the run", hint="pass --resume RUN_ID")
    # checked before anything is opened or written: a bad id or question starts nothing
    run_id = check_run_id(run_id) if run_id is not None else new_run_id()
    if not resume:
        question = normalize_question(question or "")
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    bus = EventBus(run_id, list(sinks))
    if not resume:
        assert question is not None  # normalised above
        bus.emit(
            "run_started",
            message="Research started",
            question=question,
            model=settings.model,
            # the provider ports will build: its name is the canonical list in settings
            search=search.name if search is not None else settings.search,
            depth=settings.depth,
        )
    from deepresearch.checkpoints import describe, open_checkpointer
    from deepresearch.graph import build_graph
    from deepresearch.ports import open_context

    async with AsyncExitStack() as stack:
        if not resume:  # announced: a setup failure from here on ends it as run_failed
            stack.push(_failed_on_error(bus, settings))
        saver = await stack.enter_async_context(open_checkpointer(settings))
        graph = build_graph(saver)
        config: RunnableConfig = {
            "configurable": {"thread_id": run_id},
            "recursion_limit": RECURSION_LIMIT,
        }
        snapshot = await graph.aget_state(config)
        values: RunState = snapshot.values  # type: ignore[assignment]
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
        ctx = await open_context(stack, settings, bus, models, search, fetcher)
        gateway = ctx.gateway

        start: RunState | None
        if resume:
            if "usage" in values:
                gateway.usage.merge(values["usage"])
            if not snapshot.next and "report" in values:
                bus.emit(
                    "run_completed", message="Run was already complete", kind=values["report"].kind
                )
                return values["report"]
            bus.emit(
                "run_resumed",
                message=f"Resuming at {', '.join(snapshot.next)}",
                question=values.get("question", ""),
                next=list(snapshot.next),
            )
            start = None
        else:
            assert question is not None  # normalised above
            start = {"run_id": run_id, "question": question}

        try:
            async for _ in graph.astream(
                start,
                config,
                context=ctx,
                durability="sync",
                stream_mode="updates",
                interrupt_after=[stop_after] if stop_after else None,
            ):
                pass
        except DeepResearchError as exc:
            bus.emit(
                "run_failed", message=redact(str(exc), settings.secrets()), error=type(exc).__name__
            )
            raise
        except Exception as exc:
            message = f"the run failed unexpectedly ({type(exc).__name__})"
            bus.emit("run_failed", message=message, error=type(exc).__name__)
            raise RunError(message, hint=f"resume it with --resume {run_id}") from exc

        final = await graph.aget_state(config)
        report: Report | None = final.values.get("report")
        if report is None or final.next:
            bus.emit("warning", message=f"Run paused after {stop_after}", next=list(final.next))
            return None
        bus.emit(
            "run_completed",
            message="Research finished",
            kind=report.kind,
            sources=len(report.sources),
            evidence=len(report.evidence),
            fetches=ctx.fetches,
            input_tokens=report.usage.input_tokens,
            output_tokens=report.usage.output_tokens,
        )
        return report


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
            bus.emit("run_failed", message=message, error=type(exc).__name__)
        return False  # never swallow the error

    return on_exit


def run_record_path(settings: Settings, run_id: str) -> Path:
    """``data_dir/runs/<run_id>.json``, for a valid run id only, and checked to stay
    inside that folder whatever the id (defence in depth behind ``check_run_id``)."""
    folder = (settings.data_dir / "runs").resolve()
    path = (folder / f"{check_run_id(run_id)}.json").resolve()
    if path.parent != folder:
        raise InvalidInput(f"run {run_id!r} would be stored outside {folder}")
    return path


def save_run_record(
    settings: Settings, run_id: str, question: str, options: Mapping[str, object]
) -> None:
    """Remember what a run was started with (no secrets), so ``--resume`` can reuse it."""
    path = run_record_path(settings, run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "run_id": run_id,
        "question": question,
        "started": datetime.now(UTC).isoformat(),
        "options": options,
    }
    path.write_text(json.dumps(record, indent=2, default=str), encoding="utf-8")


def load_run_record(settings: Settings, run_id: str) -> dict[str, object] | None:
    """What the run was started with, or None when there is no (readable) record."""
    path = run_record_path(settings, run_id)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


async def load_report(settings: Settings, run_id: str) -> Report | None:
    """The report of a finished run from its checkpoint; None while it is unfinished."""
    from deepresearch.checkpoints import open_checkpointer
    from deepresearch.graph import build_graph

    check_run_id(run_id)
    if not settings.database_url and not checkpoint_path(settings).is_file():
        raise RunNotFound(f"no runs in {settings.data_dir}", hint="check DEEPRESEARCH_DATA_DIR")
    async with open_checkpointer(settings) as saver:
        graph = build_graph(saver)
        snapshot = await graph.aget_state({"configurable": {"thread_id": run_id}})
    values: RunState = snapshot.values  # type: ignore[assignment]
    if not values:
        raise RunNotFound(f"no run {run_id!r} in {settings.data_dir}", hint="check the run id")
    if snapshot.next:
        return None
    return values.get("report")
