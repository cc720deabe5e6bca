"""The MCP tools, over a ``Backend`` that runs and stores the research.

* ``research(question, depth?, no_clarify?)``: research a question; long-running, it
  sends a progress notification for each step of the run (stage, wave, sources read,
  verified quotes) and returns the report as markdown, with the run id.
* ``get_report(run_id, format?)``: a finished run's report: md, html or json as text, pdf
  or docx as an embedded resource (base64, with its media type).
* ``list_runs(limit?)``: the runs this caller can see, newest first, with their recipe.

What a caller gives is checked as every other front end checks it: the question by the
one normaliser and limit (``core.sanitize``), a run id by the one rule (``core.ids``). A
report is rendered through the run's recipe (``export.formats.render_bytes``), whichever
recipe ran it. A failure is a tool error with a plain message (what went wrong, what to
do), never a traceback.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from deepresearch import __version__
from deepresearch.core.ids import run_id_problem
from deepresearch.core.sanitize import normalize_question
from deepresearch.errors import DeepResearchError, InvalidInput
from deepresearch.export import BINARY_FORMATS
from deepresearch.export.formats import media_type, render_bytes
from deepresearch.mcp import INSTALL_HINT, MISSING_SDK
from deepresearch.mcp.progress import ProgressTracker
from deepresearch.models import RunEvent
from deepresearch.recipes.base import Recipe

try:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import (
        BlobResourceContents,
        CallToolResult,
        ContentBlock,
        EmbeddedResource,
        TextContent,
    )
except ImportError as exc:  # the optional extra
    raise ImportError(f"{MISSING_SDK}; {INSTALL_HINT}") from exc

Depth = Literal["quick", "standard", "deep"]
ReportFormat = Literal["md", "html", "json", "pdf", "docx"]
EventHandler = Callable[[RunEvent], Awaitable[None]]

INSTRUCTIONS = (
    "deepresearch researches a question on the web (or a local corpus), reads the sources, "
    "verifies every quote against the page it came from and writes a cited report. Call "
    "research with the question; it takes minutes and reports progress. Reports of earlier "
    "runs: list_runs, then get_report."
)


@dataclass(frozen=True)
class Finished:
    run_id: str
    kind: str
    markdown: str


@dataclass(frozen=True)
class RunResult:
    """A finished run's document (a Report, an employer profile...) and the recipe that
    made it, which renders it."""

    recipe: Recipe[Any, Any]
    document: Any


class RunInfo(BaseModel):
    run_id: str
    question: str
    recipe: str = Field(description="the recipe that ran it (research, employer...)")
    status: str = Field(description="queued, running, completed, failed, cancelled, unfinished")
    kind: str | None = Field(default=None, description="the report's kind, once finished")
    started: str | None = None


class RunList(BaseModel):
    runs: list[RunInfo]


class Backend(Protocol):
    async def research(
        self, ctx: Context, question: str, options: dict[str, Any], on_event: EventHandler
    ) -> Finished: ...

    async def result(self, ctx: Context, run_id: str) -> RunResult:
        """``run_id``'s document; called with a valid run id only."""
        ...

    async def runs(self, ctx: Context, limit: int) -> list[RunInfo]: ...

    @property
    def pdf_fonts(self) -> Sequence[Path]:
        """The ``pdf_fonts`` setting: the fonts a PDF embeds before the system's."""
        ...


def tool_error(exc: DeepResearchError) -> ToolError:
    """Our error as a tool error: its message and what to do, nothing else."""
    return ToolError(f"{exc.message} (hint: {exc.hint})" if exc.hint else exc.message)


def checked_run_id(run_id: str) -> str:
    """``run_id`` if it is one (the rule of every edge, ``core.ids``), else a tool error."""
    problem = run_id_problem(run_id)
    if problem is not None:
        raise ToolError(f"{problem} (hint: list_runs shows your runs' ids)")
    return run_id


def build_server(backend: Backend) -> MCPServer:
    server: MCPServer = MCPServer(
        name="deepresearch",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",  # the SDK sets up logging; INFO would log every PDF font subset
    )

    @server.tool(
        name="research",
        description=(
            "Research a question: search, read the sources, verify every quote, and return a "
            "cited markdown report whose every citation traces to a verified quote. Takes "
            "minutes; progress notifications say what the run is doing. depth: quick, "
            "standard (default) or deep. The result names the run id for get_report."
        ),
    )
    async def research(
        question: str,
        ctx: Context,
        depth: Depth | None = None,
        no_clarify: bool = False,
    ) -> CallToolResult:
        tracker = ProgressTracker()

        async def on_event(event: RunEvent) -> None:
            notice = tracker.update(event)
            if notice is not None:
                await ctx.report_progress(notice.progress, notice.total, notice.message)

        options: dict[str, Any] = {"depth": depth, "no_clarify": no_clarify or None}
        options = {key: value for key, value in options.items() if value is not None}
        try:  # the CLI's, the library's and the API's rules: controls removed, a limit
            question = normalize_question(question)
        except InvalidInput as exc:
            raise tool_error(exc) from None
        done = await backend.research(ctx, question, options, on_event)
        return CallToolResult(
            content=[TextContent(type="text", text=done.markdown)],
            structured_content={"run_id": done.run_id, "kind": done.kind},
        )

    @server.tool(
        name="get_report",
        description=(
            "The report of a finished run, by run id: md (default), html or json as text; pdf "
            "or docx as an embedded file (base64) with its media type."
        ),
    )
    async def get_report(run_id: str, ctx: Context, format: ReportFormat = "md") -> CallToolResult:
        found = await backend.result(ctx, checked_run_id(run_id))
        data = await asyncio.to_thread(
            render_bytes, found.recipe, found.document, format, pdf_fonts=backend.pdf_fonts
        )
        block: ContentBlock
        if format in BINARY_FORMATS:
            block = EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(
                    uri=f"deepresearch://runs/{run_id}/report.{format}",
                    mime_type=media_type(format),
                    blob=base64.b64encode(data).decode("ascii"),
                ),
            )
        else:
            block = TextContent(type="text", text=data.decode("utf-8"))
        return CallToolResult(
            content=[block], structured_content={"run_id": run_id, "format": format}
        )

    @server.tool(
        name="list_runs",
        description=(
            "Your research runs, newest first: id, question, recipe, status and report kind."
        ),
    )
    async def list_runs(ctx: Context, limit: int = 20) -> RunList:
        if not 1 <= limit <= 100:
            raise ToolError("limit must be between 1 and 100")
        return RunList(runs=await backend.runs(ctx, limit))

    return server
