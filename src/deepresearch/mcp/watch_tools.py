"""The MCP server's watch tools (issue 25, docs/watches.md): ``add_watch``,
``list_watches``, ``watch_report`` and ``remove_watch``, over the caller's watches (the
local owner's over stdio, as ``deepresearch watch`` without ``--key``; the key's over
HTTP ``/mcp``). The rules are ``deepresearch.watches.Desk``'s, the same as the CLI's and
``/v1/watches``'; the scheduler of ``deepresearch serve`` or a worker runs the watches."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Literal, Protocol, TypeVar

from pydantic import BaseModel, Field

from deepresearch.core.sanitize import MAX_QUESTION_CHARS
from deepresearch.core.watch_changes import summary_line
from deepresearch.errors import DeepResearchError
from deepresearch.export.markdown import to_markdown
from deepresearch.export.watch_report import change_document
from deepresearch.watches import Desk

try:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations
except ImportError as exc:  # the optional extra; server.py says how to install it
    raise ImportError(str(exc)) from exc

T = TypeVar("T")

#: a watch is stored (its runs search the open web later), or removed, or only read
ADDS_A_WATCH = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True
)
REMOVES_A_WATCH = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
READS_WATCHES = ToolAnnotations(read_only_hint=True, open_world_hint=False)

WatchId = Annotated[
    str, Field(min_length=1, max_length=64, description="the watch's id (from list_watches)")
]
Every = Annotated[str | None, Field(max_length=16, description="how often: 30m, 6h, 1d or 1w")]
Cron = Annotated[
    str | None,
    Field(max_length=100, description="or a cron expression, e.g. '0 7 * * *' (UTC)"),
]
WatchDepth = Annotated[
    Literal["quick", "standard", "deep"] | None,
    Field(description="how much each run researches (default: the server's)"),
]
Thread = Annotated[
    str | None,
    Field(max_length=64, description="a finished research job the first run is compared with"),
]
Webhook = Annotated[
    str | None,
    Field(
        max_length=2000,
        description="POST each change report here (https, or http to a loopback address), "
        "signed with HMAC-SHA256 (X-Deepresearch-Signature) by the returned signing_secret",
    ),
]
WatchQuestion = Annotated[
    str,
    Field(
        description="the question to re-run on schedule",
        json_schema_extra={"minLength": 1, "maxLength": MAX_QUESTION_CHARS},
    ),
]


class WatchDesks(Protocol):
    def watches(self, ctx: Context) -> Desk:
        """The caller's watches: the local owner's (stdio) or the key's (HTTP)."""
        ...


class WatchInfo(BaseModel):
    id: str
    question: str
    schedule: str
    state: Literal["active", "paused"]
    next_due: datetime
    last_run: str | None = Field(default=None, description="the run its last due time started")
    deferred_until: datetime | None = Field(
        default=None, description="its due time waits for the key's rate limit until then"
    )
    deferred_reason: str | None = None


class AddedWatch(WatchInfo):
    signing_secret: str | None = Field(
        default=None, description="the webhook's HMAC key: shown now, never again"
    )


class WatchList(BaseModel):
    watches: list[WatchInfo]


class WatchReport(BaseModel):
    watch_id: str
    run_id: str | None = Field(default=None, description="the run the report compares")
    summary: str = Field(description="one line: what changed, or why there is no report")
    report: str | None = Field(default=None, description="the change report, in markdown")


class Removed(BaseModel):
    removed: str


async def _call(backend: WatchDesks, ctx: Context, work: Callable[[Desk], T]) -> T:
    """``work`` on the caller's watches, off the event loop; a refusal as a tool error."""
    desk = backend.watches(ctx)
    try:
        return await asyncio.to_thread(work, desk)
    except DeepResearchError as exc:  # its message and what to do, as every tool's
        hint = f" (hint: {exc.hint})" if exc.hint else ""
        raise ToolError(f"{exc.message}{hint}") from None


def _info(watch: object) -> WatchInfo:
    return WatchInfo.model_validate(watch, from_attributes=True)


def add_watch_tools(server: MCPServer, backend: WatchDesks) -> None:
    """The four watch tools, in this order in the client's tool list."""

    @server.tool(
        name="add_watch",
        description="Re-run a question on a schedule (every 30m/6h/1d/1w, or a cron "
        "expression); each run writes a change report: new findings, findings no longer "
        "on their page or now contradicted, new and vanished sources.",
        annotations=ADDS_A_WATCH,
    )
    async def add_watch(
        question: WatchQuestion,
        ctx: Context,
        every: Every = None,
        cron: Cron = None,
        depth: WatchDepth = None,
        thread: Thread = None,
        webhook: Webhook = None,
    ) -> AddedWatch:
        added = await _call(
            backend,
            ctx,
            lambda d: d.add(question, every, cron, depth=depth, thread=thread, webhook=webhook),
        )
        return AddedWatch(**_info(added).model_dump(), signing_secret=added.webhook_secret)

    @server.tool(
        name="list_watches",
        description="Your watches: id, question, schedule, state, next due time, last run.",
        annotations=READS_WATCHES,
    )
    async def list_watches(ctx: Context) -> WatchList:
        return WatchList(watches=[_info(w) for w in await _call(backend, ctx, Desk.all)])

    @server.tool(
        name="watch_report",
        description="The latest change report of a watch (markdown): what changed since "
        "its previous run, each finding with its verified quote and fetch dates.",
        annotations=READS_WATCHES,
    )
    async def watch_report(watch_id: WatchId, ctx: Context) -> WatchReport:
        reports = await _call(backend, ctx, lambda d: d.reports(watch_id))
        if not reports:
            return WatchReport(watch_id=watch_id, summary="no change report yet")
        latest = reports[0]
        return WatchReport(
            watch_id=watch_id,
            run_id=latest.run_id,
            summary=summary_line(latest),
            report=to_markdown(change_document(latest)),
        )

    @server.tool(
        name="remove_watch",
        description="Remove a watch and its change reports (the runs it started stay).",
        annotations=REMOVES_A_WATCH,
    )
    async def remove_watch(watch_id: WatchId, ctx: Context) -> Removed:
        await _call(backend, ctx, lambda d: d.remove(watch_id))
        return Removed(removed=watch_id)
