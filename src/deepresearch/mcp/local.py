"""The stdio backend: research runs in this process, exactly as ``deepresearch run`` runs
it (the same Settings rules, runner, checkpoints, data folder and run records, with the
corpus kept as an absolute path and how the run ended), so a run started over MCP can be
resumed, listed and re-rendered with the CLI too (``deepresearch runs list``,
``deepresearch report RUN_ID``), and a run the CLI started (any recipe's) can be listed
and fetched here.

A run that asks back is checkpointed where it stands and recorded ``awaiting_input``;
``reply`` resumes it as ``deepresearch reply`` does (the answer checked by
``core.review`` before anything runs, with the options the run was started with), and
``follow_up`` starts the next turn of a thread as ``deepresearch ask`` does."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from deepresearch.core.ids import new_run_id
from deepresearch.core.review import check_reply
from deepresearch.errors import ConfigError, DeepResearchError, RunNotFound
from deepresearch.export.formats import render_text
from deepresearch.llm.redact import redact
from deepresearch.mcp import INSTALL_HINT, MISSING_SDK
from deepresearch.mcp.outcomes import AWAITING, Cancelled, Finished, Outcome, Waiting, request_data
from deepresearch.mcp.server import EventHandler, RunInfo, RunResult, not_found, tool_error
from deepresearch.models import RunEvent
from deepresearch.models.library import LOCAL_OWNER, LibraryHit, LibraryQuery
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.base import Recipe
from deepresearch.recipes.registry import DEFAULT_RECIPE, followups, get_recipe
from deepresearch.records import (
    CANCELLED,
    cancel_waiting,
    list_run_records,
    now,
    update_run_record,
    waiting_input,
)
from deepresearch.runner import (
    load_result,
    load_run_record,
    run_recipe,
    save_run_record,
)
from deepresearch.service.db import open_database
from deepresearch.service.schemas import InputReply
from deepresearch.service.store import JobStore
from deepresearch.settings import Settings, load_settings
from deepresearch.settings_values import Role
from deepresearch.watches import Desk

try:
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError as exc:  # the optional extra
    raise ImportError(f"{MISSING_SDK}; {INSTALL_HINT}") from exc

log = logging.getLogger(__name__)


class LocalBackend:
    def __init__(
        self,
        settings: Settings,
        *,
        record_options: Mapping[str, Any] | None = None,
        models: Mapping[Role, BaseChatModel | None] | None = None,
    ) -> None:
        self.settings = settings
        #: the flags the server was started with (as ``deepresearch run`` takes them),
        #: the base of each run's Settings and remembered with it for --resume
        self.record_options = dict(record_options or {})
        self.models = models
        self._watch_store: JobStore | None = None  # opened at the first watch tool call

    def watches(self, ctx: Context) -> Desk:
        """The local owner's watches in the service database, as ``deepresearch watch``."""
        if self._watch_store is None:
            self._watch_store = JobStore(open_database(self.settings))
        return Desk(
            self._watch_store,
            LOCAL_OWNER,
            self.settings.max_watches_per_key,
            self.settings.watch_min_interval_s,
        )

    @property
    def pdf_fonts(self) -> Sequence[Path]:
        return self.settings.pdf_fonts

    async def research(
        self, ctx: Context, question: str, options: dict[str, Any], on_event: EventHandler
    ) -> Outcome:
        recipe = get_recipe(DEFAULT_RECIPE)
        return await self._start(recipe, question, {**self.record_options, **options}, {}, on_event)

    async def follow_up(
        self,
        ctx: Context,
        run_id: str,
        question: str,
        options: dict[str, Any],
        on_event: EventHandler,
    ) -> Outcome:
        # the thread goes on with the options its run was started with, as ``ask`` does
        given = {**self._options_of(run_id), **options}
        try:
            await followups().check_parent(load_settings(**given), run_id)
        except RunNotFound:
            raise not_found(run_id) from None
        except DeepResearchError as exc:
            raise tool_error(exc) from None
        recipe = get_recipe(DEFAULT_RECIPE)
        return await self._start(recipe, question, given, {"followup_of": run_id}, on_event)

    async def reply(
        self, ctx: Context, run_id: str, body: InputReply, on_event: EventHandler
    ) -> Outcome:
        given = self._options_of(run_id)
        try:
            settings = load_settings(**given)
            record = load_run_record(settings, run_id) or {}
            waiting = await waiting_input(settings, run_id)
            if waiting is None:
                raise ConfigError(
                    f"run {run_id} is not waiting for input",
                    hint=f"get_report shows how it stands (or list_runs); its id: {run_id}",
                )
            if body.action == "cancel":
                cancel_waiting(settings, run_id)
                return Cancelled(run_id)
            answer = check_reply(waiting, body.reply())  # a bad answer changes nothing
        except RunNotFound:
            raise not_found(run_id) from None
        except DeepResearchError as exc:
            raise tool_error(exc) from None
        recipe = get_recipe(str(record.get("recipe") or DEFAULT_RECIPE))
        _remember(settings, run_id, status="running", pid=os.getpid())
        return await self._drive(recipe, None, settings, run_id, on_event, reply=answer)

    async def _start(
        self,
        recipe: Recipe[Any, Any],
        question: str,
        given: dict[str, Any],
        request_options: dict[str, Any],
        on_event: EventHandler,
    ) -> Outcome:
        """A new run of ``recipe`` on ``question``, recorded as ``deepresearch run``
        records its own."""
        try:
            # built as the CLI builds a run's Settings: the flags over config and
            # environment, validated (model_copy would not check the tool's options)
            settings = load_settings(**given)
            request = recipe.request(question, request_options)
        except DeepResearchError as exc:
            raise tool_error(exc) from None
        run_id = new_run_id()
        if settings.corpus_dir is not None:  # a resume from another folder finds it
            given = {**given, "corpus_dir": settings.corpus_dir.expanduser().resolve()}
        remembered = {k: str(v) if isinstance(v, Path) else v for k, v in given.items()}
        save_run_record(settings, run_id, request.question, remembered, recipe=recipe.name)
        _remember(settings, run_id, status="running", pid=os.getpid())
        return await self._drive(recipe, request, settings, run_id, on_event)

    async def _drive(
        self,
        recipe: Recipe[Any, Any],
        request: Any,
        settings: Settings,
        run_id: str,
        on_event: EventHandler,
        *,
        reply: Any = None,
    ) -> Outcome:
        """Run (``request``) or resume (``reply``) run ``run_id``, every event to
        ``on_event``, until it finishes or asks back."""
        events: asyncio.Queue[RunEvent | None] = asyncio.Queue()

        async def run() -> Any:
            try:
                return await run_recipe(
                    recipe,
                    request,
                    settings,
                    run_id=run_id,
                    resume=request is None,
                    reply=reply,
                    sinks=[events.put_nowait],
                    models=self.models,
                )
            finally:
                events.put_nowait(None)

        task = asyncio.create_task(run())
        try:
            while (event := await events.get()) is not None:
                await on_event(event)
            document = await task
        except DeepResearchError as exc:
            error = redact(exc.message, settings.secrets())
            _remember(settings, run_id, status="failed", error=error, finished=now())
            raise tool_error(exc) from None
        finally:
            if not task.done():  # the call was cancelled: the run stops, resumable later
                task.cancel()
                _remember(settings, run_id, status="interrupted", finished=now())
        if isinstance(document, InputRequest):  # checkpointed; reply continues it
            _remember(settings, run_id, status=AWAITING)
            return Waiting(document)
        assert document is not None  # only stop_after pauses a run without asking
        kind = recipe.completion(document, fetches=0).kind
        _remember(settings, run_id, status="complete", kind=kind, finished=now(), error=None)
        return Finished(run_id, kind, render_text(recipe, document, "md"))

    def _options_of(self, run_id: str) -> dict[str, Any]:
        """The options run ``run_id`` was started with (its run record), else the
        server's."""
        record = load_run_record(self.settings, run_id) or {}
        remembered = record.get("options")
        return dict(remembered) if isinstance(remembered, dict) else dict(self.record_options)

    async def result(self, ctx: Context, run_id: str) -> RunResult | Waiting:
        try:
            recipe, document = await load_result(self.settings, run_id)
            waiting = await self._waiting(run_id) if document is None else None
        except RunNotFound:
            raise not_found(run_id) from None
        except DeepResearchError as exc:
            raise tool_error(exc) from None
        if waiting is not None:
            return Waiting(waiting)
        if document is None:
            raise ToolError(
                f"run {run_id} ({recipe.name}) has not finished; resume it with the "
                f"deepresearch command that started it and --resume {run_id}"
            )
        return RunResult(recipe, document)

    async def _waiting(self, run_id: str) -> InputRequest | None:
        """What unfinished run ``run_id`` asks, unless it was cancelled."""
        return await waiting_input(self.settings, run_id)

    async def library(self, ctx: Context, query: LibraryQuery) -> list[LibraryHit]:
        return await _search_library(self.settings, query)

    async def runs(self, ctx: Context, limit: int) -> list[RunInfo]:
        records = list_run_records(self.settings)[:limit]
        out = []
        for record in records:
            run_id = str(record["run_id"])
            waiting = None
            try:
                recipe, document = await load_result(self.settings, run_id)
                waiting = await self._waiting(run_id) if document is None else None
            except RunNotFound:  # recorded, but stopped before its first checkpoint
                try:
                    recipe, document = get_recipe(str(record.get("recipe") or DEFAULT_RECIPE)), None
                except ConfigError:  # a recipe this version does not have
                    continue
            except DeepResearchError:  # a checkpoint this version cannot read
                continue
            status = "completed" if document is not None else "unfinished"
            if waiting is not None:
                status = AWAITING
            elif document is None and record.get("status") == CANCELLED:
                status = CANCELLED
            out.append(
                RunInfo(
                    run_id=run_id,
                    question=str(record.get("question", "")),
                    recipe=recipe.name,
                    status=status,
                    kind=None if document is None else recipe.completion(document, fetches=0).kind,
                    started=str(record["started"]) if record.get("started") else None,
                    request=request_data(waiting) if waiting is not None else None,
                )
            )
        return out


async def _search_library(settings: Settings, query: LibraryQuery) -> list[LibraryHit]:
    """The local user's library, searched off the event loop."""
    from deepresearch.library import open_store

    def search() -> list[LibraryHit]:
        with open_store(settings) as store:
            return store.search(LOCAL_OWNER, query)

    try:
        return await asyncio.to_thread(search)
    except DeepResearchError as exc:
        raise tool_error(exc) from None


def _remember(settings: Settings, run_id: str, **fields: object) -> None:
    """Note in the run's record how it goes (``deepresearch runs list`` reads it); a record
    that cannot be written costs the run nothing."""
    try:
        update_run_record(settings, run_id, **fields)
    except OSError as exc:
        log.warning("could not update the run record of %s (%s)", run_id, exc.strerror or exc)
