"""The MCP server inside ``deepresearch serve``: streamable HTTP at ``/mcp``, behind the same
API keys as ``/v1`` and with the same owner isolation.

Every request to ``/mcp`` is authenticated by ``service.auth.caller`` first (a 401
problem without a valid key when keys exist). The caller then rides on the request: as
``scope["user"]``, which binds each MCP session to the key that opened it (the SDK
answers 404 to a session id presented with another key), and under ``CALLER``, where the
tools read whose jobs they may touch. Research goes through the job service
(``ServiceBackend``): a submitted job obeys the per-key limits, runs on the worker pool,
survives a restart, and its stored events become the tool's progress notifications, until
it ends or waits for an answer (AWAITING_INPUT: the tool returns what it asks). ``reply``
is ``POST /v1/research/{id}/input``'s own code (``service.answers``), ``follow_up`` that of
``POST .../followups`` (``service.submission``); a 404 of theirs, another key's job as much
as a missing one, is the tools' one "no run" error.

Without any API key the service is the one local user's, on loopback; then a request
must also name a loopback host (``Host: 127.0.0.1``, ``localhost`` or ``[::1]``), so a web
page cannot reach the tools through DNS rebinding.

The SDK's session manager runs for the app's lifetime (``McpEndpoint.running`` inside the
FastAPI lifespan); a new one is made each time the app starts.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from deepresearch.mcp import INSTALL_HINT, MISSING_SDK
from deepresearch.mcp.outcomes import Cancelled, Finished, Outcome, Waiting, request_data
from deepresearch.mcp.server import (
    EventHandler,
    RunInfo,
    RunResult,
    build_server,
    not_found,
    validation_problems,
)
from deepresearch.models.library import LOCAL_OWNER, LibraryHit, LibraryQuery
from deepresearch.recipes.registry import get_recipe
from deepresearch.service.answers import answer_job
from deepresearch.service.auth import Caller, caller
from deepresearch.service.evals import evaluated_result
from deepresearch.service.jobs import Submission
from deepresearch.service.problems import ApiProblem
from deepresearch.service.schemas import (
    FollowupRequest,
    InputReply,
    ResearchOptions,
    ResearchRequest,
    RunOptions,
)
from deepresearch.service.sse import follow_job
from deepresearch.service.state import ServiceState
from deepresearch.service.store import StoredEvent
from deepresearch.service.submission import submit_followup, submit_job
from deepresearch.settings import Settings
from deepresearch.watches import Desk

try:
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
    from mcp.server.auth.provider import AccessToken
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
except ImportError as exc:  # the optional extra
    raise ImportError(f"{MISSING_SDK}; {INSTALL_HINT}") from exc

PATH = "/mcp"
#: where the authenticated caller rides in the ASGI scope
CALLER = "deepresearch.caller"
LOOPBACK_NAMES = frozenset({"localhost"})


class ServiceBackend:
    """The tools over the job service, as the caller of each request: each goes through
    the API's own path (``submission``, ``answers``), and an ``ApiProblem`` becomes a tool
    error with the same words (a 404, another key's run as much as a missing one, is
    ``not_found``)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def pdf_fonts(self) -> Sequence[Path]:
        return self.settings.pdf_fonts

    def _who(self, ctx: Context) -> tuple[ServiceState, Caller]:
        request = ctx.request_context.request
        who = request.scope.get(CALLER) if isinstance(request, Request) else None
        if not isinstance(who, Caller):  # never: every request passes McpEndpoint
            raise ToolError("this request was not authenticated")
        assert isinstance(request, Request)
        state: ServiceState = request.app.state.service
        return state, who

    async def research(
        self, ctx: Context, question: str, options: dict[str, Any], on_event: EventHandler
    ) -> Outcome:
        state, who = self._who(ctx)
        try:
            body = ResearchRequest(question=question, options=ResearchOptions(**options))
        except ValidationError as exc:
            raise ToolError(f"invalid request: {validation_problems(exc)}") from None
        with refused(None):
            submission = await submit_job(state, who, body)
        _check_not_attached(submission, body.question, who)
        return await follow(state, submission.job.id, 0, on_event)

    async def reply(
        self, ctx: Context, run_id: str, body: InputReply, on_event: EventHandler
    ) -> Outcome:
        state, who = self._who(ctx)
        # before the answer: the run's events from then on are this call's progress
        after = await run_in_threadpool(state.store.last_event_seq, run_id)
        with refused(run_id):
            answered = await answer_job(state, who, run_id, body)
        if answered.outcome == "cancelled":
            return Cancelled(run_id)
        return await follow(state, run_id, after, on_event)

    async def follow_up(
        self,
        ctx: Context,
        run_id: str,
        question: str,
        options: dict[str, Any],
        on_event: EventHandler,
    ) -> Outcome:
        state, who = self._who(ctx)
        try:
            body = FollowupRequest(question=question, options=RunOptions(**options))
        except ValidationError as exc:
            raise ToolError(f"invalid request: {validation_problems(exc)}") from None
        with refused(run_id):
            submission = await submit_followup(state, who, run_id, body)
        _check_not_attached(submission, body.question, who)
        return await follow(state, submission.job.id, 0, on_event)

    async def result(self, ctx: Context, run_id: str) -> RunResult | Waiting:
        state, who = self._who(ctx)
        job = await run_in_threadpool(state.store.get, run_id, who.owner)
        if job is None:
            raise not_found(run_id)
        if job.status == "EXPIRED":
            raise ToolError(f"run {run_id} has expired; its report is no longer kept")
        if job.status == "AWAITING_INPUT":
            pending = await run_in_threadpool(state.store.pending_input, job.id)
            if pending is not None:
                return Waiting(pending)
        found = await run_in_threadpool(evaluated_result, state.store, job)
        if found is None:
            raise ToolError(f"run {run_id} is {job.status.lower()}; its report is not ready")
        _, document, _ = found
        recipe = get_recipe(job.recipe)
        return RunResult(recipe, recipe.result_model.model_validate(document))

    async def library(self, ctx: Context, query: LibraryQuery) -> list[LibraryHit]:
        state, who = self._who(ctx)
        if state.library is None:
            raise ToolError("the library is not available on this server")
        store = state.library
        return await run_in_threadpool(lambda: store.search(who.owner, query))

    def watches(self, ctx: Context) -> Desk:
        """The key's watches, as ``/v1/watches`` serves them."""
        state, who = self._who(ctx)
        limits = state.service
        return Desk(state.store, who.owner, limits.max_watches_per_key, limits.watch_min_interval_s)

    async def runs(self, ctx: Context, limit: int) -> list[RunInfo]:
        state, who = self._who(ctx)
        jobs = await run_in_threadpool(lambda: state.store.list_jobs(who.owner, limit=limit))
        out = []
        for job in jobs:
            found = (
                await run_in_threadpool(state.store.result, job.id)
                if job.status == "COMPLETED"
                else None
            )
            pending = (
                await run_in_threadpool(state.store.pending_input, job.id)
                if job.status == "AWAITING_INPUT"
                else None
            )
            out.append(
                RunInfo(
                    run_id=job.id,
                    question=job.question,
                    recipe=job.recipe,
                    status=job.status.lower(),
                    kind=found[0] if found is not None else None,
                    started=job.created_at.isoformat(),
                    request=request_data(pending) if pending is not None else None,
                )
            )
        return out


@contextlib.contextmanager
def refused(run_id: str | None) -> Iterator[None]:
    """The API's refusal as a tool error in its words; its 404 as ``not_found``."""
    try:
        yield
    except ApiProblem as exc:
        if exc.status == 404 and run_id is not None:
            raise not_found(run_id) from None
        raise ToolError(f"{exc.detail} (hint: {exc.hint})" if exc.hint else exc.detail) from None


def _check_not_attached(submission: Submission, question: str, who: Caller) -> None:
    """A job the active-run limit pointed at is not the one asked for: say so."""
    job = submission.job
    if submission.attached and job.question != question:
        raise ToolError(
            f"your key may run {who.max_active_runs} research job(s) at once and "
            f"{job.id} ({job.question!r}) is still running; ask again when it has "
            "finished (list_runs shows it, get_report fetches its report)"
        )


async def follow(state: ServiceState, job_id: str, after: int, on_event: EventHandler) -> Outcome:
    """Follow job ``job_id`` from its event ``after`` (every event to ``on_event``) until
    it ends, or waits for an answer (``sse.follow_job``, the SSE stream's follower)."""
    async with contextlib.aclosing(
        follow_job(state, job_id, after, quiet_s=state.notifier.poll_s)
    ) as items:
        async for item in items:
            if isinstance(item, StoredEvent):
                await on_event(item.event)
            elif item.status == "AWAITING_INPUT":  # its input_requested is stored by now
                pending = await run_in_threadpool(state.store.pending_input, job_id)
                if pending is not None:
                    return Waiting(pending)
    final = await run_in_threadpool(state.store.get, job_id)
    status = final.status if final is not None else "EXPIRED"
    if status != "COMPLETED" or final is None:
        reason = f": {final.error}" if final is not None and final.error else ""
        raise ToolError(f"run {job_id} {status.lower()}{reason}")
    found = await run_in_threadpool(state.store.result, job_id)
    if found is None:
        raise ToolError(f"run {job_id} completed but stored no report")
    kind, _, markdown = found
    return Finished(job_id, kind, markdown)


def _is_loopback_host(request: Request) -> bool:
    host = request.url.hostname or ""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class McpEndpoint:
    """The ASGI app at ``/mcp``: authenticate, then hand the request to the SDK."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.manager: StreamableHTTPSessionManager | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        server: MCPServer = build_server(ServiceBackend(self.settings))
        # host checks are ours (above): the SDK's default would allow only loopback hosts
        server.streamable_http_app(
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False)
        )
        manager = server.session_manager
        async with manager.run():
            self.manager = manager
            try:
                yield
            finally:
                self.manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        who = await caller(request)  # ApiProblem: answered by the app's problem handler
        if who.owner == LOCAL_OWNER and not _is_loopback_host(request):
            raise ApiProblem(
                403,
                "without API keys the MCP endpoint answers only requests to a loopback "
                "address (Host: 127.0.0.1, localhost or [::1])",
                kind="forbidden",
                hint="create a key with 'deepresearch keys create NAME' to serve other hosts",
            )
        if self.manager is None:
            raise ApiProblem(503, "the MCP endpoint is starting or stopping; retry shortly")
        scope["user"] = AuthenticatedUser(
            AccessToken(token=who.owner, client_id=who.owner, scopes=[])
        )
        scope[CALLER] = who
        await self.manager.handle_request(scope, receive, send)
