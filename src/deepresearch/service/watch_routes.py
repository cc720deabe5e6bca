"""The /v1/watches endpoints (issue 25): add, list, show, pause, resume, run now and
remove the caller's watches, and read their change reports (md, html, json) and Atom
feed. Thin: the schedule's rules are ``core/watch_schedule.py``, the store
``service/store/watches.py``, the scheduler ``watch_scheduler.py``. Every call is bound
to the caller's key: another key's watch is a 404 exactly like one that does not exist.
A refused request (a bad schedule, one that runs too often, too many watches, a thread
that is not the caller's finished run) is a 4xx problem and stores nothing."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.concurrency import run_in_threadpool

from deepresearch.core.sanitize import MAX_QUESTION_CHARS, normalize_question
from deepresearch.core.watch_schedule import ScheduleError, next_due, parse_stored, schedule_of
from deepresearch.errors import DeepResearchError
from deepresearch.export.formats import media_type, render_document
from deepresearch.export.watch_feed import atom_feed
from deepresearch.export.watch_report import change_document, change_json
from deepresearch.fetch.webhook import vet_webhook
from deepresearch.models.watch import ChangeReport, Watch, WebhookDelivery
from deepresearch.recipes.registry import DEFAULT_RECIPE
from deepresearch.service.auth import Caller, caller
from deepresearch.service.problems import ApiProblem
from deepresearch.service.schemas import Problem, RunOptions
from deepresearch.service.sse import EventStream, parse_event_id
from deepresearch.service.state import ServiceState
from deepresearch.service.store import WatchLimitReached, WatchRun
from deepresearch.service.submission import followable
from deepresearch.service.watch_sse import watch_events

watch_router = APIRouter(prefix="/v1/watches", tags=["watches"])
CallerDep = Annotated[Caller, Depends(caller)]
PROBLEMS: dict[int | str, dict[str, object]] = {
    401: {"model": Problem, "description": "missing or invalid API key"},
    404: {"model": Problem, "description": "no such watch of yours"},
    409: {"model": Problem, "description": "the watch is paused, or the thread not finished"},
    422: {"model": Problem, "description": "a bad schedule, or one that runs too often"},
    429: {"model": Problem, "description": "the key keeps as many watches as it may"},
}


class WatchRequest(BaseModel):
    """A question to re-run on a schedule: ``every`` (30m, 6h, 1d) or ``cron``."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"question": "What is the latest CPython release?", "every": "1d"}]
        },
    )

    question: str = Field(json_schema_extra={"minLength": 1, "maxLength": MAX_QUESTION_CHARS})
    every: str | None = Field(default=None, max_length=20, description="30m, 6h, 1d, 1w")
    cron: str | None = Field(default=None, max_length=200, description="e.g. '0 7 * * *'")
    thread: str | None = Field(
        default=None,
        max_length=64,
        description="a finished research job of yours the first run is compared with",
    )
    webhook: str | None = Field(
        default=None,
        max_length=2000,
        description="POST each change report here (https, or http to a loopback address), "
        "signed with HMAC-SHA256 in X-Deepresearch-Signature",
    )
    options: RunOptions = Field(default_factory=RunOptions)

    @field_validator("question")
    @classmethod
    def _normalise(cls, value: str) -> str:
        return normalize_question(value)


class WatchRunView(BaseModel):
    due_at: datetime
    job_id: str
    status: Literal["running", "reported"]
    summary: str | None = None
    webhook: WebhookDelivery | None = Field(
        default=None,
        description="its change report's webhook delivery: pending (with the next "
        "attempt's time), delivered, or failed (with the last error)",
    )


class WatchView(Watch):
    runs: list[WatchRunView] = Field(default_factory=list, description="newest first")


class AddedWatch(WatchView):
    signing_secret: str | None = Field(
        default=None, description="the webhook's HMAC key: shown now, never again"
    )


def _view(watch: Watch, runs: list[WatchRun] | None = None) -> WatchView:
    shown = [
        WatchRunView(
            due_at=r.due_at, job_id=r.job_id, status=r.status, summary=r.summary, webhook=r.delivery
        )
        for r in runs or []
    ]
    return WatchView(**watch.model_dump(), runs=shown)


def _state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.service
    return state


def _not_found(watch_id: str) -> ApiProblem:
    return ApiProblem(404, f"no watch {watch_id!r}", kind="not-found")


async def _owned(request: Request, who: Caller, watch_id: str) -> Watch:
    watch = await run_in_threadpool(_state(request).store.get_watch, watch_id, who.owner)
    if watch is None:
        raise _not_found(watch_id)
    return watch


@watch_router.post("", status_code=201, responses=PROBLEMS, summary="Add a watch")
async def add_watch(request: Request, who: CallerDep, body: WatchRequest) -> AddedWatch:
    state = _state(request)
    now = state.store.clock()
    try:
        schedule = schedule_of(
            every=body.every,
            cron=body.cron,
            minimum_s=state.service.watch_min_interval_s,
            now=now,
        )
    except ScheduleError as exc:
        raise ApiProblem(422, str(exc), kind="bad-schedule") from None
    options = body.options.settings_update()
    if body.webhook is not None:
        try:
            await vet_webhook(body.webhook)
        except DeepResearchError as exc:
            raise ApiProblem(422, exc.message, kind="bad-webhook", hint=exc.hint) from None
    await run_in_threadpool(state.jobs.refuse, DEFAULT_RECIPE, options)
    thread = (await followable(state, who, body.thread)).id if body.thread else None
    try:
        watch = await run_in_threadpool(
            lambda: state.store.add_watch(
                owner=who.owner,
                question=body.question,
                schedule=schedule.text,
                options=options,
                first_due=now,  # the first run starts at the next tick
                thread=thread,
                max_watches=state.service.max_watches_per_key,
                webhook_url=body.webhook,
            )
        )
    except WatchLimitReached:
        raise ApiProblem(
            429,
            f"this key keeps {state.service.max_watches_per_key} watches already; remove one first",
            kind="too-many-watches",
        ) from None
    return AddedWatch(**_view(watch).model_dump(), signing_secret=watch.webhook_secret)


@watch_router.get("", responses=PROBLEMS, summary="Your watches")
async def list_watches(request: Request, who: CallerDep) -> list[WatchView]:
    watches = await run_in_threadpool(_state(request).store.list_watches, who.owner)
    return [_view(w) for w in watches]


@watch_router.get("/{watch_id}", responses=PROBLEMS, summary="A watch and its runs")
async def show_watch(request: Request, who: CallerDep, watch_id: str) -> WatchView:
    watch = await _owned(request, who, watch_id)
    runs = await run_in_threadpool(_state(request).store.watch_runs, watch.id)
    return _view(watch, runs)


@watch_router.delete("/{watch_id}", status_code=204, responses=PROBLEMS, summary="Remove")
async def remove_watch(request: Request, who: CallerDep, watch_id: str) -> Response:
    if not await run_in_threadpool(_state(request).store.remove_watch, watch_id, who.owner):
        raise _not_found(watch_id)
    return Response(status_code=204)


@watch_router.post("/{watch_id}/pause", responses=PROBLEMS, summary="Pause a watch")
async def pause_watch(request: Request, who: CallerDep, watch_id: str) -> WatchView:
    store = _state(request).store
    watch = await run_in_threadpool(store.set_watch_state, watch_id, who.owner, "paused", None)
    if watch is None:
        raise _not_found(watch_id)
    return _view(watch)


@watch_router.post("/{watch_id}/resume", responses=PROBLEMS, summary="Resume a watch")
async def resume_watch(request: Request, who: CallerDep, watch_id: str) -> WatchView:
    store = _state(request).store
    found = await _owned(request, who, watch_id)
    due = next_due(parse_stored(found.schedule), store.clock())
    watch = await run_in_threadpool(store.set_watch_state, watch_id, who.owner, "active", due)
    if watch is None:
        raise _not_found(watch_id)
    return _view(watch)


@watch_router.post("/{watch_id}/run-now", responses=PROBLEMS, summary="Run at the next tick")
async def run_watch_now(request: Request, who: CallerDep, watch_id: str) -> WatchView:
    found = await _owned(request, who, watch_id)
    watch = await run_in_threadpool(_state(request).store.due_now, found.id, who.owner)
    if watch is None:
        raise ApiProblem(409, "the watch is paused; resume it first", kind="paused")
    return _view(watch)


async def _reports(request: Request, who: Caller, watch_id: str) -> list[ChangeReport]:
    watch = await _owned(request, who, watch_id)
    runs = await run_in_threadpool(_state(request).store.watch_runs, watch.id)
    return [r.report for r in runs if r.report is not None]


@watch_router.get("/{watch_id}/report", responses=PROBLEMS, summary="The last change report")
async def watch_report(
    request: Request,
    who: CallerDep,
    watch_id: str,
    format: Annotated[Literal["md", "html", "json"], Query()] = "md",
) -> Response:
    reports = await _reports(request, who, watch_id)
    if not reports:
        raise ApiProblem(404, "the watch has no change report yet", kind="no-report")
    latest = reports[0]
    body = render_document(change_document(latest), format, lambda: change_json(latest))
    return Response(body, media_type=media_type(format))


@watch_router.get("/{watch_id}/feed.atom", responses=PROBLEMS, summary="Atom feed")
async def watch_feed(request: Request, who: CallerDep, watch_id: str) -> Response:
    watch = await _owned(request, who, watch_id)
    reports = await _reports(request, who, watch_id)
    feed = atom_feed(watch, reports, base=str(request.url_for("watch_feed", watch_id=watch.id)))
    return Response(feed, media_type="application/atom+xml")


@watch_router.get(
    "/{watch_id}/events",
    responses=PROBLEMS,
    summary="Change reports as they are written (server-sent events)",
    response_class=EventStream,
)
async def watch_stream(
    request: Request,
    who: CallerDep,
    watch_id: str,
    after: Annotated[str | None, Query(description="the last event id received")] = None,
) -> EventStream:
    watch = await _owned(request, who, watch_id)
    header = parse_event_id(request.headers.get("last-event-id"), "Last-Event-ID")
    start = header if header is not None else parse_event_id(after, "after") or 0
    return EventStream(watch_events(_state(request), request, watch.id, start))
