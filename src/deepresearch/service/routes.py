"""The /v1 endpoints. Thin: validate, ask the store, shape the answer."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from starlette.concurrency import run_in_threadpool

from deepresearch.core.ids import run_id_problem
from deepresearch.errors import ConfigError, DeepResearchError
from deepresearch.export import DRAWN_FORMATS, MEDIA_TYPES, extension
from deepresearch.export.formats import ReportFormat, render_bytes, render_text
from deepresearch.models import EvalResult
from deepresearch.recipes.registry import DEFAULT_RECIPE, get_recipe
from deepresearch.service.answers import answer_job, owned_job
from deepresearch.service.auth import Caller, caller
from deepresearch.service.evals import evaluated_result, save_evaluation
from deepresearch.service.jobs import TERMINAL, Job, Submission
from deepresearch.service.json_body import JsonRoute
from deepresearch.service.problems import ApiProblem
from deepresearch.service.schemas import (
    DEFAULT_LIST_LIMIT,
    MAX_LIST_LIMIT,
    FollowupRequest,
    InputReply,
    JobPage,
    JobView,
    Problem,
    QueueView,
    RecipesView,
    ResearchRequest,
    SourcesView,
    SourceView,
    SubmitView,
    TurnView,
    recipes_view,
)
from deepresearch.service.sse import (
    MAX_EVENT_ID,
    EventStream,
    check_in_stream,
    job_events,
    parse_event_id,
)
from deepresearch.service.state import ServiceState
from deepresearch.service.submission import submit_followup, submit_job

#: recipes whose finished jobs have a thread (first run and follow-ups)
THREADED = frozenset({DEFAULT_RECIPE})
router = APIRouter(prefix="/v1", route_class=JsonRoute)  # each JSON key at most once
CallerDep = Annotated[Caller, Depends(caller)]
PROBLEMS: dict[int | str, dict[str, Any]] = {
    status: {"model": Problem, "description": title}
    for status, title in (
        (401, "missing or invalid API key"),
        (400, "a malformed or out-of-range parameter"),
        (404, "no such job (or not yours)"),
        (409, "conflict with the job's state"),
        (422, "invalid request"),
        (429, "too many submissions"),
    )
}


#: the HTML report may style itself and show the figures it embeds (``data:`` images,
#: never an address) and nothing more: no script, fetched image, frame or form
REPORT_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)


def _state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.service
    return state


async def _own_job(request: Request, who: Caller, job_id: str) -> Job:
    return await owned_job(_state(request), who, job_id)


@router.post(
    "/research",
    status_code=201,
    response_model=SubmitView,
    responses={200: {"model": SubmitView, "description": "an existing job"}, **PROBLEMS},
    summary="Submit a research question",
)
async def submit(
    body: ResearchRequest,
    request: Request,
    response: Response,
    who: CallerDep,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> SubmitView:
    """Queue a research job. With an ``Idempotency-Key`` header, a retry with the same
    body returns the same job (200), a different body is refused (422), and a retry while
    the first is still being created gets 409. A caller with an active run gets that run
    back (200, ``attached``) unless their key allows more at once."""
    result = await submit_job(_state(request), who, body, idempotency_key)
    return _submitted(response, result)


@router.post(
    "/research/{job_id}/followups",
    status_code=201,
    response_model=SubmitView,
    responses={200: {"model": SubmitView, "description": "an existing job"}, **PROBLEMS},
    summary="Ask a follow-up question on a finished research job",
)
async def followup(
    job_id: str,
    body: FollowupRequest,
    request: Request,
    response: Response,
    who: CallerDep,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> SubmitView:
    """Queue the next turn of the job's thread: a new research job that reuses the
    thread's pages and verified evidence and researches what is new (or starts afresh
    when the question is on another topic). It runs with the followed job's options,
    unless given again; keys, idempotency, rate limits and validation are a submission's.
    Another key's job is a 404; an unfinished one a 409."""
    result = await submit_followup(_state(request), who, job_id, body, idempotency_key)
    return _submitted(response, result)


def _submitted(response: Response, result: Submission) -> SubmitView:
    """A submission's answer: 201 with the new job, or 200 with the job it names again."""
    if not result.created:
        response.status_code = 200
    response.headers["Location"] = f"/v1/research/{result.job.id}"
    view = JobView.of(result.job)
    return SubmitView(
        **view.model_dump(),
        created=result.created,
        attached=result.attached,
        replayed=result.replayed,
    )


@router.get("/research", response_model=JobPage, responses=PROBLEMS, summary="Your jobs")
async def list_jobs(
    request: Request,
    who: CallerDep,
    limit: Annotated[int, Query(ge=1, le=MAX_LIST_LIMIT)] = DEFAULT_LIST_LIMIT,
    before: Annotated[datetime | None, Query(description="created_at to page on from")] = None,
) -> JobPage:
    """The caller's jobs, newest first."""
    jobs = await run_in_threadpool(
        lambda: _state(request).store.list_jobs(who.owner, limit=limit + 1, before=before)
    )
    more = len(jobs) > limit
    jobs = jobs[:limit]
    return JobPage(
        jobs=[JobView.of(job) for job in jobs],
        next_before=jobs[-1].created_at if more and jobs else None,
    )


@router.get("/research/{job_id}", response_model=JobView, responses=PROBLEMS, summary="A job")
async def get_job(job_id: str, request: Request, who: CallerDep) -> Response:
    """Status, stage, progress (0-1), counts, usage, timestamps and, once the report was
    evaluated, its evaluation; a finished research job's thread."""
    problem = run_id_problem(job_id)
    if problem is not None:
        raise ApiProblem(422, problem, kind="invalid-job-id")
    # one trip to the thread pool and one connection for all of it: under load each trip
    # waits its turn behind the event streams' reads
    parts = await run_in_threadpool(
        _state(request).store.job_parts, job_id, who.owner, threaded=THREADED
    )
    if parts is None:
        raise ApiProblem(404, f"no job {job_id!r}", kind="not-found")
    view = JobView.of(parts.job)
    view.input_request = parts.input_request
    view.evaluation = parts.evaluation
    if parts.thread is not None:
        view.thread = [
            TurnView(
                id=turn.run_id,
                turn=turn.turn,
                question=turn.question,
                follows=turn.follows,
                topic_shift=turn.topic_shift,
                link=f"/v1/research/{turn.run_id}",
            )
            for turn in parts.thread
        ]
    # built from the typed view: encoded once, not validated a second time on the way out
    return Response(view.model_dump_json(), media_type="application/json")


@router.post(
    "/research/{job_id}/eval",
    response_model=EvalResult,
    responses={**PROBLEMS, 410: {"model": Problem, "description": "the results have expired"}},
    summary="Evaluate a finished job's report",
)
async def evaluate(job_id: str, request: Request, who: CallerDep) -> EvalResult:
    """Citation precision and recall and sub-question coverage (computed without a model)
    and the judge's scores with reasons on DeepResearch Bench's four RACE dimensions
    (comprehensiveness, insight, instruction following, readability), stored with the job:
    its view and report show them from then on. Takes as long as one judge call."""
    state = _state(request)
    job = await _own_job(request, who, job_id)
    if job.status == "EXPIRED":
        raise ApiProblem(410, "the job's results have expired", kind="expired")
    if job.status != "COMPLETED":
        raise ApiProblem(
            409, f"the job is {job.status}; only a finished report is evaluated", kind="not-ready"
        )
    try:
        result = await state.jobs.evaluate(job)
    except ConfigError as exc:  # not a research run, a reply rather than a report, no key
        raise ApiProblem(422, exc.message, kind="cannot-evaluate") from None
    except DeepResearchError as exc:
        raise ApiProblem(409, exc.message, kind="cannot-evaluate") from None
    await run_in_threadpool(save_evaluation, state.store.engine, job.id, result)
    return result


@router.post(
    "/research/{job_id}/cancel",
    status_code=202,
    response_model=JobView,
    responses=PROBLEMS,
    summary="Cancel a job",
)
async def cancel(job_id: str, request: Request, who: CallerDep) -> JobView:
    """A queued job is cancelled at once; a running one within seconds."""
    state = _state(request)
    job = await _own_job(request, who, job_id)
    if job.status in TERMINAL:
        raise ApiProblem(409, f"the job is already {job.status}", kind="job-finished")
    updated = await run_in_threadpool(state.store.request_cancel, job_id, who.owner)
    state.workers.cancel(job_id)
    state.notifier.publish(job_id)
    assert updated is not None
    return JobView.of(updated)


@router.post(
    "/research/{job_id}/input",
    response_model=JobView,
    responses={200: {"model": JobView, "description": "the same answer again"}, **PROBLEMS},
    status_code=202,
    summary="Answer what a waiting job asks",
)
async def answer_input(
    job_id: str, body: InputReply, request: Request, response: Response, who: CallerDep
) -> JobView:
    """A job AWAITING_INPUT asks a clarifying question (``{"answer": "..."}``), shows its
    plan (``{"action": "approve"}``, ``{"action": "edit", "brief": ..., "sub_questions":
    [...]}``, or ``{"action": "cancel"}``) or its findings before writing (``approve``,
    ``{"action": "drop", "drop": [ids]}``, ``{"action": "gap", "gap": "..."}``, ``cancel``)
    or its finished report (``approve``, ``{"action": "edit", "sentences": {"s3": "new
    words"}}``: each edit audited against its citations, ``{"action": "feedback",
    "feedback": "..."}``: one rewrite, with a writer model, ``cancel``). The answer is checked (422 says what is wrong;
    the job keeps waiting), queues the job again (202) and the run continues with it. The
    same answer again is harmless (200); another answer to a question already answered, or
    an answer to a job that asks nothing, is a conflict (409)."""
    answered = await answer_job(_state(request), who, job_id, body)
    if answered.outcome != "accepted":
        response.status_code = 200
    return JobView.of(answered.job)


@router.get(
    "/research/{job_id}/report",
    responses={
        200: {
            "content": {
                "text/markdown": {},
                "text/html": {},
                "application/json": {},
                **{media: {} for media in MEDIA_TYPES.values()},
            },
            "description": "the report",
        },
        **PROBLEMS,
        410: {"model": Problem, "description": "the results have expired"},
    },
    summary="The report of a finished job",
)
async def report(
    job_id: str,
    request: Request,
    who: CallerDep,
    format: ReportFormat = "json",
) -> Response:
    """The report as markdown, HTML, JSON or LaTeX, its cited sources as BibTeX, RIS or
    CSL-JSON, or a PDF, DOCX or ODT download."""
    job = await _own_job(request, who, job_id)
    if job.status == "EXPIRED":
        raise ApiProblem(410, "the job's results have expired", kind="expired")
    found = await run_in_threadpool(evaluated_result, _state(request).store, job)
    if found is None:
        raise ApiProblem(409, f"the job is {job.status}; its report is not ready", kind="not-ready")
    _, document, markdown = found
    recipe = get_recipe(job.recipe)
    if format in DRAWN_FORMATS:
        export = _state(request).export
        data = await run_in_threadpool(
            lambda: render_bytes(
                recipe,
                recipe.result_model.model_validate(document),
                format,
                pdf_fonts=export.pdf_fonts,
            )
        )
        return Response(
            data,
            media_type=MEDIA_TYPES[format],
            headers={"Content-Disposition": f'attachment; filename="{job.id}.{extension(format)}"'},
        )
    if format == "md":
        return PlainTextResponse(markdown, media_type="text/markdown; charset=utf-8")
    if format == "html":
        page = render_text(recipe, recipe.result_model.model_validate(document), "html")
        return HTMLResponse(page, headers={"Content-Security-Policy": REPORT_CSP})
    return JSONResponse(document)


@router.get(
    "/research/{job_id}/sources",
    response_model=SourcesView,
    responses=PROBLEMS,
    summary="Scored sources",
)
async def sources(job_id: str, request: Request, who: CallerDep) -> SourcesView:
    """Every candidate source of a finished job with every score, whether it was read,
    cited or dropped, and why."""
    job = await _own_job(request, who, job_id)
    rows = await run_in_threadpool(_state(request).store.sources, job_id)
    return SourcesView(
        job_id=job.id, status=job.status, sources=[SourceView.model_validate(row) for row in rows]
    )


@router.get(
    "/research/{job_id}/events",
    response_class=EventStream,
    responses=PROBLEMS,
    summary="Live events (SSE)",
)
async def events(
    job_id: str,
    request: Request,
    who: CallerDep,
    last_event_id: Annotated[str | None, Header()] = None,
    after: Annotated[
        str | None, Query(description=f"like Last-Event-ID: an event id, 0 to {MAX_EVENT_ID}")
    ] = None,
) -> Response:
    """Server-sent events: ``id:`` is the event's sequence number; reconnect with
    ``Last-Event-ID`` (or ``?after=``) to get every later event exactly once. ``heartbeat``
    events (no id) arrive while nothing else happens; the stream ends after the terminal
    event. An id that is malformed, or that the stream has not reached, is refused (400)."""
    # both read by the same rule, before the job is looked up
    given = [
        (name, event_id)
        for name, value in (("after", after), ("Last-Event-ID", last_event_id))
        if (event_id := parse_event_id(value, name)) is not None
    ]
    job = await _own_job(request, who, job_id)  # checked before the stream starts: a 404
    state = _state(request)
    start = 0
    if given:
        name, start = given[0]  # ?after= wins over the header
        last = await run_in_threadpool(state.store.last_event_seq, job.id)
        check_in_stream(start, name, last)
    return EventStream(job_events(state, request, job.id, start))


@router.get(
    "/recipes", response_model=RecipesView, responses=PROBLEMS, summary="The recipes a job may run"
)
async def recipes(who: CallerDep) -> RecipesView:
    """Every recipe: its name (the request's ``recipe``), title, description, whether it is
    the default, and the JSON schema of its own options."""
    return recipes_view()


@router.get("/queue", response_model=QueueView, responses=PROBLEMS, summary="Your queue counts")
async def queue(request: Request, who: CallerDep) -> QueueView:
    """Your jobs per state, how many of them run in this process, and its concurrency
    limit. Only your own jobs are counted: nothing here tells one key what another does."""
    state = _state(request)
    counts = await run_in_threadpool(state.store.queue_counts, who.owner)
    running = state.workers.running_ids
    here = await run_in_threadpool(state.store.count_owned, who.owner, running)
    return QueueView(
        counts=counts, running_here=here, max_concurrent_jobs=state.service.max_concurrent_jobs
    )
