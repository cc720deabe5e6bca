"""The MCP tools, over a ``Backend`` that runs and stores the research.

* ``research(question, depth?, no_clarify?, review_plan?, review_findings?, review_report?,
  use_library?, images?)``: research a question;
  long-running, it sends a progress notification for each step of the run (stage, wave,
  sources read, verified quotes) and returns the report as markdown, with the run id. A
  run may stop to ask a clarifying question (unless ``no_clarify``, or the server runs
  with it), to have its plan reviewed (``review_plan``) or its findings before writing
  (``review_findings``) or its finished report (``review_report``): then the call returns at once with what the run asks, its status
  ``awaiting_input`` and the run id (``outcomes.py``).
* ``reply(run_id, answer | action ...)``: answer a run that waits, and follow it on to its
  report (or its next question), as ``research`` does. Over HTTP it is ``POST
  /v1/research/{id}/input``'s own path (``service.answers``): the same checks, outcomes
  and limits.
* ``follow_up(run_id, question, depth?, no_clarify?)``: a follow-up question on a finished
  research run: a new run, the next turn of its thread, that reuses the pages and
  verified quotes the thread already has (over HTTP: ``POST .../followups``'s path).
* ``get_report(run_id, format?)``: a finished run's report: md, html or json as text, pdf
  or docx as an embedded resource (base64, with its media type); a waiting run's question
  or plan.
* ``list_runs(limit?)``: the runs this caller can see, newest first, with their recipe,
  status, and what a waiting one asks.

What a caller gives is checked as every other front end checks it: the question by the
one normaliser and limit (``core.sanitize``), a run id by the one rule (``core.ids``), an
answer by the API's reply model (``service.schemas.InputReply``) and ``core.review``;
arguments that do not fit a tool's schema are named in a short tool error
(``ResearchServer``). Each tool's schema says its bounds (the question's length, the
listing's limit: the API's, from ``core.sanitize`` and ``service.schemas``), the shape of
its structured result (``RunOutcome``, ``ReportView``, ``RunList``) and its annotations
(read-only, idempotent, open-world: the MCP spec's hints). A report is rendered through the run's recipe
(``export.formats.render_bytes``), whichever recipe ran it. A failure is a tool error with
a plain message (what went wrong, what to do), never a traceback.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, Field, ValidationError

from deepresearch.core.ids import run_id_problem
from deepresearch.core.library_query import parse_query
from deepresearch.core.sanitize import MAX_QUESTION_CHARS, normalize_question
from deepresearch.errors import DeepResearchError, InvalidInput, InvalidReply
from deepresearch.export import BINARY_FORMATS, extension
from deepresearch.export.formats import ReportFormat, media_type, render_bytes
from deepresearch.mcp import INSTALL_HINT, MISSING_SDK
from deepresearch.mcp.outcomes import Outcome, Waiting, outcome_result
from deepresearch.mcp.progress import ProgressTracker
from deepresearch.mcp.watch_tools import add_watch_tools
from deepresearch.models import RunEvent
from deepresearch.models.library import ItemKind, LibraryHit, LibraryQuery
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.base import Recipe
from deepresearch.service.schemas import DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, InputReply
from deepresearch.version import __version__
from deepresearch.watches import Desk

try:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.types import (
        BlobResourceContents,
        CallToolResult,
        ContentBlock,
        EmbeddedResource,
        InputRequiredResult,
        TextContent,
        ToolAnnotations,
    )
except ImportError as exc:  # the optional extra
    raise ImportError(f"{MISSING_SDK}; {INSTALL_HINT}") from exc

Depth = Literal["quick", "standard", "deep"]
EventHandler = Callable[[RunEvent], Awaitable[None]]

INSTRUCTIONS = (
    "deepresearch researches a question on the web (or a local corpus), reads the sources, "
    "verifies every quote against the page it came from and writes a cited report. Call "
    "research with the question; it takes minutes and reports progress. When a run asks "
    "back (a clarifying question, or its plan to review), the result says so with the run "
    "id: answer it with reply. follow_up asks a further question on a finished run, "
    "reusing what it read. Reports of earlier runs: list_runs, then get_report; what earlier "
    "runs found and verified: search_library. A question re-run on a schedule, reporting what "
    "changed: add_watch, list_watches, watch_report, remove_watch."
)
NoClarify = Annotated[
    bool | None,
    Field(
        description="true: research the question as given, never ask back; false: the run "
        "may ask a clarifying question (answer it with reply); default: the server's setting"
    ),
]
Images = Annotated[
    bool | None,
    Field(
        description="false: a report of text and tables only; true: with figures from the "
        "cited sources (in the html, pdf and docx formats); default: the server's setting"
    ),
]
ReviewPlan = Annotated[
    bool,
    Field(
        description="true: show the plan for review (approve or edit it with reply) before "
        "anything is searched"
    ),
]
ReviewFindings = Annotated[
    bool,
    Field(
        description="true: show the verified findings for review (approve, drop some, or "
        "name a gap with reply) before the report is written"
    ),
]
ReviewReport = Annotated[
    bool,
    Field(
        description="true: show the finished report for review (approve it, edit sentences, "
        "each audited against its citations, or give feedback for one rewrite with reply) "
        "before the run ends"
    ),
]
Presearch = Annotated[
    bool | None,
    Field(
        description="false: plan without first searching the question's names for recent "
        "entities and events; default: the server's setting (on when a model plans)"
    ),
]
UseLibrary = Annotated[
    bool,
    Field(
        description="false: do not reuse what the library verified (every page is read "
        "afresh); default true: verified quotes of earlier runs are reused"
    ),
]
#: the question's bounds, advertised as the API's are (the normaliser enforces them, after
#: controls are removed and whitespace collapsed: ``checked_question``)
Question = Annotated[
    str,
    Field(
        description="the question to research",
        json_schema_extra={"minLength": 1, "maxLength": MAX_QUESTION_CHARS},
    ),
]
Limit = Annotated[
    int, Field(ge=1, le=MAX_LIST_LIMIT, description="how many runs at most, newest first")
]
Status = Literal["completed", "awaiting_input", "cancelled"]


class RunOutcome(BaseModel):
    """How a run called through ``research``, ``reply`` or ``follow_up`` ended: the
    structured result beside the report's markdown (``outcomes.outcome_result``)."""

    run_id: str
    status: Status
    kind: str | None = Field(default=None, description="completed: the report's kind")
    request: InputRequest | None = Field(
        default=None, description="awaiting_input: what the run asks; answer it with reply"
    )


class ReportView(BaseModel):
    """``get_report``'s structured result: the report's format beside its content, or a
    waiting run's request."""

    run_id: str
    status: Literal["completed", "awaiting_input"]
    format: ReportFormat | None = Field(default=None, description="completed: the format")
    request: InputRequest | None = Field(
        default=None, description="awaiting_input: what the run asks; answer it with reply"
    )


#: what each tool does to the world, as the MCP spec's annotations say it: a run is
#: started or continued (stored, searched on the open web), or only read
STARTS_A_RUN = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True
)
ANSWERS_A_RUN = ToolAnnotations(  # the same answer twice is harmless; a cancel ends a run
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=True
)
READS_RUNS = ToolAnnotations(read_only_hint=True, open_world_hint=False)


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
    status: str = Field(
        description="queued, running, awaiting_input, completed, failed, cancelled, "
        "expired, unfinished"
    )
    kind: str | None = Field(default=None, description="the report's kind, once finished")
    started: str | None = None
    request: dict[str, Any] | None = Field(
        default=None,
        description="awaiting_input: what the run asks (a clarifying question, or a plan "
        "to review); answer it with reply",
    )


class RunList(BaseModel):
    runs: list[RunInfo]


class Backend(Protocol):
    async def research(
        self, ctx: Context, question: str, options: dict[str, Any], on_event: EventHandler
    ) -> Outcome: ...

    async def reply(
        self, ctx: Context, run_id: str, body: InputReply, on_event: EventHandler
    ) -> Outcome:
        """Answer waiting run ``run_id`` (a valid id) and follow it on."""
        ...

    async def follow_up(
        self,
        ctx: Context,
        run_id: str,
        question: str,
        options: dict[str, Any],
        on_event: EventHandler,
    ) -> Outcome:
        """A follow-up ``question`` on finished research run ``run_id`` (a valid id)."""
        ...

    async def result(self, ctx: Context, run_id: str) -> RunResult | Waiting:
        """``run_id``'s document, or what it waits for; called with a valid run id only."""
        ...

    async def runs(self, ctx: Context, limit: int) -> list[RunInfo]: ...

    async def library(self, ctx: Context, query: LibraryQuery) -> list[LibraryHit]:
        """The caller's library items matching ``query`` (issue 25)."""
        ...

    def watches(self, ctx: Context) -> Desk:
        """The caller's watches (issue 25; ``watch_tools.py``)."""
        ...

    @property
    def pdf_fonts(self) -> Sequence[Path]:
        """The ``pdf_fonts`` setting: the fonts a PDF embeds before the system's."""
        ...


#: how to answer each kind of pause with the ``reply`` tool: the hint for a reply of the
#: wrong kind, in the tool's arguments (the core's hint is the API's JSON)
REPLY_HINTS = {
    "clarification": "call reply with answer (text), or action cancel",
    "plan": "call reply with action approve; action edit with brief and/or sub_questions; "
    "or action cancel",
    "findings": "call reply with action approve; action drop with drop (evidence ids); "
    "action gap with gap; or action cancel",
    "report": "call reply with action approve; action edit with sentences (id -> new "
    "words); action feedback with feedback (a writer model rewrites once); or action cancel",
}


def tool_error(exc: DeepResearchError) -> ToolError:
    """Our error as a tool error: its message and what to do, nothing else."""
    hint = REPLY_HINTS.get(exc.asked, exc.hint) if isinstance(exc, InvalidReply) else exc.hint
    return ToolError(f"{exc.message} (hint: {hint})" if hint else exc.message)


def not_found(run_id: str) -> ToolError:
    """The one answer for a run that is not there, or is not the caller's."""
    return ToolError(f"no run {run_id!r} (list_runs shows yours)")


def checked_run_id(run_id: str) -> str:
    """``run_id`` if it is one (the rule of every edge, ``core.ids``), else a tool error."""
    problem = run_id_problem(run_id)
    if problem is not None:
        raise ToolError(f"{problem} (hint: list_runs shows your runs' ids)")
    return run_id


def checked_question(question: str) -> str:
    """The CLI's, the library's and the API's rules: controls removed, a limit."""
    try:
        return normalize_question(question)
    except InvalidInput as exc:
        raise tool_error(exc) from None


def validation_problems(exc: ValidationError) -> str:
    """A validation error in a line: each field and what is wrong with it."""
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        problems.append(f"{where}: {message}" if where else message)
    return "; ".join(problems)


class ResearchServer(MCPServer):
    """The SDK's server, with arguments that do not fit a tool's schema reported in a
    line (the SDK's own message is pydantic's, with its documentation links), and
    arguments a tool does not take refused (the SDK would ignore them)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult | InputRequiredResult:
        # a misspelt argument would be dropped silently (a run asking back after
        # "no_clarfy": true): name it instead
        takes = next(
            (
                set(t.input_schema.get("properties", {}))
                for t in await self.list_tools()
                if t.name == name
            ),
            None,
        )
        unknown = sorted(set(arguments) - takes) if takes is not None else []
        if unknown:
            raise ToolError(
                f"invalid arguments for {name}: unknown {', '.join(unknown)} (it takes: "
                f"{', '.join(sorted(takes or ()))})"
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(
                f"invalid arguments for {name}: {validation_problems(cause)} (the tool's "
                "input schema lists what it takes)"
            ) from cause


def progress_reporter(ctx: Context) -> EventHandler:
    """The handler that turns a run's events into the call's progress notifications."""
    tracker = ProgressTracker()

    async def on_event(event: RunEvent) -> None:
        notice = tracker.update(event)
        if notice is not None:
            await ctx.report_progress(notice.progress, notice.total, notice.message)

    return on_event


def run_options(depth: Depth | None, no_clarify: bool | None, **more: Any) -> dict[str, Any]:
    """The options a tool call sets; the rest are the server's."""
    given = {"depth": depth, "no_clarify": no_clarify, **more}
    return {key: value for key, value in given.items() if value is not None}


#: the ``research`` tool's description, which the client's model reads
RESEARCH_DESCRIPTION = (
    "Research a question: search, read the sources, verify every quote, and return a "
    "cited markdown report whose every citation traces to a verified quote. Takes "
    "minutes; progress notifications say what the run is doing. depth: quick, "
    "standard (default) or deep. The run may ask back first (a clarifying question; "
    "with review_plan, its plan; with review_findings, its verified findings before "
    "writing; with review_report, its finished report): then the result has status awaiting_input, what "
    "it asks and the run id; answer with reply. no_clarify=true never asks. The "
    "result names the run id for get_report and follow_up."
)

#: the ``reply`` tool's description, which the client's model reads
REPLY_DESCRIPTION = (
    "Answer a run that waits (status awaiting_input), then follow it to its report "
    "(or its next question), with progress notifications like research. A "
    "clarifying question: answer (text). A plan to review: action approve; action "
    "edit with brief and/or sub_questions (1-8, replacing the plan's); or action "
    "cancel. Findings to review before writing: action approve; action drop with "
    "drop (evidence ids never to reach the report); action gap with gap (a question "
    "for one more wave, 3-300 characters); or action cancel. The finished report to "
    "review: action approve; action edit with sentences (sentence id -> new words, empty "
    "to remove it; each edit is audited against its citations); action feedback with "
    "feedback (one rewrite; needs a writer model); or action cancel. "
    "The same answer twice is harmless; another answer to a question "
    "already answered is refused."
)

#: the ``follow_up`` tool's description, which the client's model reads
FOLLOW_UP_DESCRIPTION = (
    "Ask a follow-up question on a finished research run: a new run, the next turn "
    "of its thread, that reuses the pages and verified quotes the thread already "
    "has, researches only what is new and returns a report citing both (or starts "
    "afresh when the question is on another topic). Long-running, with progress "
    "notifications like research; it may ask back like research. It runs with the "
    "followed run's options unless depth or no_clarify is given."
)

#: the ``get_report`` tool's description, which the client's model reads
GET_REPORT_DESCRIPTION = (
    "The report of a finished run, by run id: md (default), html, json or latex as text; "
    "its cited sources as bibtex, ris or csljson text; pdf, docx or odt as an embedded "
    "file (base64) with its media type. For a run that waits (status awaiting_input): "
    "what it asks, to answer with reply."
)

#: the ``list_runs`` tool's description, which the client's model reads
LIST_RUNS_DESCRIPTION = (
    "Your research runs, newest first: id, question, recipe, status, report kind, and "
    "for a run that waits (awaiting_input) what it asks."
)


def build_server(backend: Backend) -> MCPServer:
    """The MCP server with its ten tools over ``backend``."""
    server: MCPServer = ResearchServer(
        name="deepresearch",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",  # the SDK sets up logging; INFO would log every PDF font subset
    )
    for add_tool in (
        add_research,
        add_reply,
        add_follow_up,
        add_get_report,
        add_list_runs,
        add_search_library,
    ):  # in this order in the client's tool list
        add_tool(server, backend)
    add_watch_tools(server, backend)
    return server


def add_research(server: MCPServer, backend: Backend) -> None:
    """The ``research`` tool: a new run, followed to its report (or what it asks)."""

    @server.tool(name="research", description=RESEARCH_DESCRIPTION, annotations=STARTS_A_RUN)
    async def research(
        question: Question,
        ctx: Context,
        depth: Depth | None = None,
        no_clarify: NoClarify = None,
        review_plan: ReviewPlan = False,
        review_findings: ReviewFindings = False,
        review_report: ReviewReport = False,
        use_library: UseLibrary = True,
        images: Images = None,
        presearch: Presearch = None,
    ) -> Annotated[CallToolResult, RunOutcome]:
        options = run_options(
            depth,
            no_clarify,
            review_plan=review_plan or None,
            review_findings=review_findings or None,
            review_report=review_report or None,
            use_library=None if use_library else False,
            images=images,
            presearch=presearch,
        )
        question = checked_question(question)
        done = await backend.research(ctx, question, options, progress_reporter(ctx))
        return outcome_result(done)


def add_reply(server: MCPServer, backend: Backend) -> None:
    """The ``reply`` tool: answer a waiting run and follow it on."""

    @server.tool(name="reply", description=REPLY_DESCRIPTION, annotations=ANSWERS_A_RUN)
    async def reply(
        run_id: str,
        ctx: Context,
        answer: str | None = None,
        action: Literal["approve", "edit", "drop", "gap", "feedback", "cancel"] | None = None,
        brief: str | None = None,
        sub_questions: list[str] | None = None,
        drop: list[str] | None = None,
        gap: str | None = None,
        sentences: dict[str, str] | None = None,
        feedback: str | None = None,
    ) -> Annotated[CallToolResult, RunOutcome]:
        run_id = checked_run_id(run_id)
        given = {
            "answer": answer,
            "action": action,
            "brief": brief,
            "sub_questions": sub_questions,
            "drop": drop,
            "gap": gap,
            "sentences": sentences,
            "feedback": feedback,
        }
        try:  # the API's reply model: one kind of answer, its limits
            body = InputReply(**{key: value for key, value in given.items() if value is not None})
        except ValidationError as exc:
            raise ToolError(f"invalid reply: {validation_problems(exc)}") from None
        done = await backend.reply(ctx, run_id, body, progress_reporter(ctx))
        return outcome_result(done)


def add_follow_up(server: MCPServer, backend: Backend) -> None:
    """The ``follow_up`` tool: the next turn of a finished run's thread."""

    @server.tool(name="follow_up", description=FOLLOW_UP_DESCRIPTION, annotations=STARTS_A_RUN)
    async def follow_up(
        run_id: str,
        question: Question,
        ctx: Context,
        depth: Depth | None = None,
        no_clarify: NoClarify = None,
    ) -> Annotated[CallToolResult, RunOutcome]:
        run_id = checked_run_id(run_id)
        question = checked_question(question)
        options = run_options(depth, no_clarify)
        done = await backend.follow_up(ctx, run_id, question, options, progress_reporter(ctx))
        return outcome_result(done)


def add_get_report(server: MCPServer, backend: Backend) -> None:
    """The ``get_report`` tool: a finished run's report in a format (or what it waits for)."""

    @server.tool(name="get_report", description=GET_REPORT_DESCRIPTION, annotations=READS_RUNS)
    async def get_report(
        run_id: str, ctx: Context, format: ReportFormat = "md"
    ) -> Annotated[CallToolResult, ReportView]:
        found = await backend.result(ctx, checked_run_id(run_id))
        if isinstance(found, Waiting):
            return outcome_result(found)
        data = await asyncio.to_thread(
            render_bytes, found.recipe, found.document, format, pdf_fonts=backend.pdf_fonts
        )
        return CallToolResult(
            content=[report_block(run_id, format, data)],
            structured_content={"run_id": run_id, "status": "completed", "format": format},
        )


def report_block(run_id: str, format: str, data: bytes) -> ContentBlock:
    """A rendered report as a content block: text, or a binary format as an embedded
    resource (base64, with its media type)."""
    if format in BINARY_FORMATS:
        return EmbeddedResource(
            type="resource",
            resource=BlobResourceContents(
                uri=f"deepresearch://runs/{run_id}/report.{extension(format)}",
                mime_type=media_type(format),
                blob=base64.b64encode(data).decode("ascii"),
            ),
        )
    return TextContent(type="text", text=data.decode("utf-8"))


def add_list_runs(server: MCPServer, backend: Backend) -> None:
    """The ``list_runs`` tool: the caller's runs, newest first."""

    @server.tool(name="list_runs", description=LIST_RUNS_DESCRIPTION, annotations=READS_RUNS)
    async def list_runs(ctx: Context, limit: Limit = DEFAULT_LIST_LIMIT) -> RunList:
        return RunList(runs=await backend.runs(ctx, limit))


#: the ``search_library`` tool's description, which the client's model reads
SEARCH_LIBRARY_DESCRIPTION = (
    "Search what your earlier runs found: full text over their reports, verified quotes and "
    "claims, and the documents you imported. Each result has the text, its source (URL, "
    "title, when the page was read) and its run (id, question, date, tags) or collection. "
    "Filters: since and until (YYYY-MM-DD), domain, run, tag, recipe, kind (report, quote, "
    "claim or document), collection; limit 1-100."
)


class LibraryResults(BaseModel):
    results: list[LibraryHit]


def add_search_library(server: MCPServer, backend: Backend) -> None:
    """The ``search_library`` tool: the caller's library, searched (issue 25)."""

    @server.tool(
        name="search_library", description=SEARCH_LIBRARY_DESCRIPTION, annotations=READS_RUNS
    )
    async def search_library(
        query: str,
        ctx: Context,
        since: str | None = None,
        until: str | None = None,
        domain: str | None = None,
        run: str | None = None,
        tag: str | None = None,
        recipe: str | None = None,
        kind: ItemKind | None = None,
        collection: str | None = None,
        limit: int = 10,
    ) -> LibraryResults:
        filters = {
            "since": since,
            "until": until,
            "domain": domain,
            "run": run,
            "tag": tag,
            "recipe": recipe,
            "kind": kind,
            "collection": collection,
            "limit": limit,
        }
        try:  # the rules of every front end
            checked = parse_query(query, filters)
        except DeepResearchError as exc:
            raise tool_error(exc) from None
        return LibraryResults(results=await backend.library(ctx, checked))
