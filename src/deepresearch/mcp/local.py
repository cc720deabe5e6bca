"""The stdio backend: research runs in this process, exactly as ``deepresearch run`` runs
it (the same runner, checkpoints and data folder), so a run started over MCP can be
resumed, listed and re-rendered with the CLI too (``deepresearch report RUN_ID``)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from deepresearch.core.ids import new_run_id
from deepresearch.core.render import to_markdown
from deepresearch.errors import DeepResearchError, RunNotFound
from deepresearch.export.fonts import find_fonts
from deepresearch.export.formats import Result
from deepresearch.mcp import INSTALL_HINT, MISSING_SDK
from deepresearch.mcp.server import EventHandler, Finished, RunInfo
from deepresearch.models import Report, RunEvent
from deepresearch.runner import load_report, run_research, save_run_record
from deepresearch.settings import Role, Settings

try:
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError as exc:  # the optional extra
    raise ImportError(f"{MISSING_SDK}; {INSTALL_HINT}") from exc

#: what a run id can look like (the CLI's ``run-`` and hex, or one given with --run-id)
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def tool_error(exc: DeepResearchError) -> ToolError:
    """Our error as a tool error: its message and what to do, nothing else."""
    return ToolError(f"{exc.message} (hint: {exc.hint})" if exc.hint else exc.message)


class LocalBackend:
    def __init__(
        self,
        settings: Settings,
        *,
        record_options: Mapping[str, Any] | None = None,
        models: Mapping[Role, BaseChatModel | None] | None = None,
    ) -> None:
        self.settings = settings
        #: the flags the server was started with, remembered with each run for --resume
        self.record_options = dict(record_options or {})
        self.models = models

    def fonts(self) -> list[Path]:
        return find_fonts(self.settings.pdf_fonts)

    async def research(
        self, ctx: Context, question: str, options: dict[str, Any], on_event: EventHandler
    ) -> Finished:
        run_id = new_run_id()
        settings = self.settings.model_copy(update=options)
        save_run_record(settings, run_id, question, {**self.record_options, **options})
        events: asyncio.Queue[RunEvent | None] = asyncio.Queue()

        async def run() -> Report | None:
            try:
                return await run_research(
                    question, settings, run_id=run_id, sinks=[events.put_nowait], models=self.models
                )
            finally:
                events.put_nowait(None)

        task = asyncio.create_task(run())
        try:
            while (event := await events.get()) is not None:
                await on_event(event)
            report = await task
        except DeepResearchError as exc:
            raise tool_error(exc) from None
        finally:
            if not task.done():  # the call was cancelled: the run stops, resumable later
                task.cancel()
        assert report is not None  # only stop_after pauses a run
        return Finished(run_id, report.kind, to_markdown(report))

    async def result(self, ctx: Context, run_id: str) -> Result:
        if not RUN_ID.fullmatch(run_id):
            raise ToolError(f"no run {run_id!r}: a run id looks like run-1a2b3c4d5e6f")
        try:
            report = await load_report(self.settings, run_id)
        except DeepResearchError as exc:
            raise tool_error(exc) from None
        if report is None:
            raise ToolError(
                f"run {run_id} has not finished; resume it with: deepresearch run --resume {run_id}"
            )
        return report

    async def runs(self, ctx: Context, limit: int) -> list[RunInfo]:
        records = _records(self.settings.data_dir / "runs")[:limit]
        out = []
        for record in records:
            run_id = str(record["run_id"])
            try:
                report = await load_report(self.settings, run_id)
            except RunNotFound:
                report = None
            out.append(
                RunInfo(
                    run_id=run_id,
                    question=str(record.get("question", "")),
                    status="completed" if report is not None else "unfinished",
                    kind=report.kind if report is not None else None,
                    started=str(record["started"]) if record.get("started") else None,
                )
            )
        return out


def _records(folder: Path) -> Sequence[dict[str, Any]]:
    """The run records the CLI and this server keep, newest first; unreadable ones skipped."""
    records = []
    for path in folder.glob("*.json") if folder.is_dir() else ():
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and RUN_ID.fullmatch(str(record.get("run_id", ""))):
            records.append(record)
    return sorted(records, key=lambda r: str(r.get("started", "")), reverse=True)
