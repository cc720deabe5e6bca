"""The stdio backend: research runs in this process, exactly as ``deepresearch run`` runs
it (the same Settings rules, runner, checkpoints, data folder and run records, with the
corpus kept as an absolute path and how the run ended), so a run started over MCP can be
resumed, listed and re-rendered with the CLI too (``deepresearch runs list``,
``deepresearch report RUN_ID``), and a run the CLI started (any recipe's) can be listed
and fetched here."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from deepresearch.core.ids import new_run_id
from deepresearch.errors import ConfigError, DeepResearchError, RunNotFound
from deepresearch.llm.redact import redact
from deepresearch.mcp import INSTALL_HINT, MISSING_SDK
from deepresearch.mcp.server import EventHandler, Finished, RunInfo, RunResult, tool_error
from deepresearch.models import RunEvent
from deepresearch.recipes.registry import DEFAULT_RECIPE, get_recipe
from deepresearch.records import list_run_records, now, update_run_record
from deepresearch.runner import load_result, run_recipe, save_run_record
from deepresearch.settings import Role, Settings, load_settings

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

    @property
    def pdf_fonts(self) -> Sequence[Path]:
        return self.settings.pdf_fonts

    async def research(
        self, ctx: Context, question: str, options: dict[str, Any], on_event: EventHandler
    ) -> Finished:
        recipe = get_recipe(DEFAULT_RECIPE)
        given = {**self.record_options, **options}
        try:
            # built as the CLI builds a run's Settings: the flags over config and
            # environment, validated (model_copy would not check the tool's options)
            settings = load_settings(**given)
            request = recipe.request(question, {})
        except DeepResearchError as exc:
            raise tool_error(exc) from None
        run_id = new_run_id()
        if settings.corpus_dir is not None:  # a resume from another folder finds it
            given["corpus_dir"] = settings.corpus_dir.expanduser().resolve()
        remembered = {k: str(v) if isinstance(v, Path) else v for k, v in given.items()}
        save_run_record(settings, run_id, request.question, remembered, recipe=recipe.name)
        _remember(settings, run_id, status="running", pid=os.getpid())
        events: asyncio.Queue[RunEvent | None] = asyncio.Queue()

        async def run() -> Any:
            try:
                return await run_recipe(
                    recipe,
                    request,
                    settings,
                    run_id=run_id,
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
        assert document is not None  # only stop_after pauses a run
        kind = recipe.completion(document, fetches=0).kind
        _remember(settings, run_id, status="complete", kind=kind, finished=now())
        return Finished(run_id, kind, recipe.render(document, "md"))

    async def result(self, ctx: Context, run_id: str) -> RunResult:
        try:
            recipe, document = await load_result(self.settings, run_id)
        except DeepResearchError as exc:
            raise tool_error(exc) from None
        if document is None:
            raise ToolError(
                f"run {run_id} ({recipe.name}) has not finished; resume it with the "
                f"deepresearch command that started it and --resume {run_id}"
            )
        return RunResult(recipe, document)

    async def runs(self, ctx: Context, limit: int) -> list[RunInfo]:
        records = list_run_records(self.settings)[:limit]
        out = []
        for record in records:
            run_id = str(record["run_id"])
            try:
                recipe, document = await load_result(self.settings, run_id)
            except RunNotFound:  # recorded, but stopped before its first checkpoint
                try:
                    recipe, document = get_recipe(str(record.get("recipe") or DEFAULT_RECIPE)), None
                except ConfigError:  # a recipe this version does not have
                    continue
            except DeepResearchError:  # a checkpoint this version cannot read
                continue
            out.append(
                RunInfo(
                    run_id=run_id,
                    question=str(record.get("question", "")),
                    recipe=recipe.name,
                    status="completed" if document is not None else "unfinished",
                    kind=None if document is None else recipe.completion(document, fetches=0).kind,
                    started=str(record["started"]) if record.get("started") else None,
                )
            )
        return out


def _remember(settings: Settings, run_id: str, **fields: object) -> None:
    """Note in the run's record how it goes (``deepresearch runs list`` reads it); a record
    that cannot be written costs the run nothing."""
    try:
        update_run_record(settings, run_id, **fields)
    except OSError as exc:
        log.warning("could not update the run record of %s (%s)", run_id, exc.strerror or exc)
