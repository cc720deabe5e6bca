"""``deepresearch jobs submit|list|status|watch|reply|cancel|report``: the service's API
from the command line (see docs/service.md). ``watch`` shows the same live view as
``deepresearch run`` and exits like it: 0 report ready, 1 failed or cancelled, 2 usage or
configuration error (wrong key, unknown job, no service at the URL), 3 nothing reliable
found, 4 the job waits for an answer (what it asks is shown, and how to give it with
``jobs reply``, which takes ``deepresearch reply``'s answers)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from deepresearch.cli import options
from deepresearch.cli.choices import Format
from deepresearch.cli.common import (
    EXIT_ABORT,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_WAITING,
    STDOUT,
    check_output,
    error,
    fail,
    question_or_exit,
    run_id_or_exit,
    say,
    settings_from,
    write_output,
)
from deepresearch.cli.reply import (
    Approve,
    Brief,
    Cancel,
    Drop,
    Edit,
    Feedback,
    Gap,
    SubQuestion,
    answer_of,
)
from deepresearch.core.sanitize import for_terminal
from deepresearch.errors import DeepResearchError
from deepresearch.recipes.registry import DEFAULT_RECIPE, recipe_names
from deepresearch.service import DEFAULT_SERVER

if TYPE_CHECKING:  # the client (httpx, pydantic) loads when a command runs, not for --help
    from deepresearch.models import RunEvent
    from deepresearch.service.client import ServiceClient
    from deepresearch.service.schemas import JobView

jobs = typer.Typer(
    help="Submit research jobs to a deepresearch service and follow them.",
    no_args_is_help=True,
)

Server = Annotated[
    str,
    typer.Option(
        "--server",
        envvar="DEEPRESEARCH_SERVER",
        help="URL of the service ('deepresearch serve').",
    ),
]
ApiKey = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        envvar="DEEPRESEARCH_API_KEY",
        help="API key (sent as 'Authorization: Bearer'; prefer the environment variable).",
        show_default=False,
    ),
]


def _job_id(value: str) -> str:
    # checked before any request: an id like '../queue' would name another endpoint
    return run_id_or_exit(value, "job id")


JobId = Annotated[
    str, typer.Argument(help="The job's id (from 'submit' or 'list').", callback=_job_id)
]
JsonOutput = Annotated[bool, typer.Option("--json", help="Print the job as JSON.")]
JsonEvents = Annotated[
    bool, typer.Option(help="Print NDJSON events on stdout instead of the live view.")
]


@contextmanager
def _client(server: str, api_key: str | None) -> Iterator[ServiceClient]:
    """A client for the command, with every error of ours turned into a message and an
    exit code (never a traceback)."""
    from deepresearch.service.client import ServiceClient

    try:
        with ServiceClient(server, api_key or None) as client:
            yield client
    except DeepResearchError as exc:
        fail(exc)


@jobs.command("submit")
def submit(
    question: Annotated[str, typer.Argument(help="The question to research.")],
    depth: options.DepthOption = None,
    search: options.Search = None,
    model: options.Model = None,
    recipe: Annotated[
        str, typer.Option(help=f"What kind of research: {', '.join(recipe_names())}.")
    ] = DEFAULT_RECIPE,
    idempotency_key: Annotated[
        str | None,
        typer.Option(help="Retrying with the same key returns the same job, never a second."),
    ] = None,
    no_clarify: options.NoClarify = False,
    review_plan: options.ReviewPlan = False,
    review_findings: options.ReviewFindings = False,
    review_report: options.ReviewReport = False,
    watch: Annotated[bool, typer.Option("--watch", help="Then watch it, like 'watch'.")] = False,
    json_: JsonOutput = False,
    json_events: JsonEvents = False,
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = None,
) -> None:
    """Queue QUESTION and print the job's id (with --watch, follow it to the end)."""
    question = question_or_exit(question)
    if idempotency_key is not None and not (
        0 < len(idempotency_key) <= 200
        and idempotency_key.isascii()
        and idempotency_key.isprintable()
    ):
        error(
            "--idempotency-key must be 1 to 200 printable ASCII characters",
            "a UUID is a good key",
        )
    chosen: dict[str, Any] = {
        "depth": depth.value if depth else None,
        "search": search,
        "model": model,
        "no_clarify": no_clarify or None,
        "review_plan": review_plan or None,
        "review_findings": review_findings or None,
        "review_report": review_report or None,
    }
    with _client(server, api_key) as client:
        job = client.submit(
            question,
            recipe=recipe,
            options={key: value for key, value in chosen.items() if value is not None},
            idempotency_key=idempotency_key,
        )
        typer.echo(job.model_dump_json(indent=2) if json_ else for_terminal(job.id))
        if job.attached:
            say(f"you already have a run going ({job.status}); this is it, not a new job")
        elif job.replayed:
            say(f"this Idempotency-Key already made job {job.id} ({job.status})")
        else:
            say(f"queued job {job.id}")
        if watch:
            _watch(client, job.id, json_events=json_events)


@jobs.command("list")
def list_(
    limit: Annotated[int, typer.Option(min=1, max=100, help="How many jobs.")] = 20,
    before: Annotated[
        str | None,
        typer.Option(help="Only jobs created before this ISO time (to page on).", metavar="TIME"),
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="Print the page as JSON.")] = False,
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = None,
) -> None:
    """Your jobs, newest first: id, status, progress, created, question."""
    since = _parse_time(before) if before else None
    with _client(server, api_key) as client:
        page = client.list_jobs(limit=limit, before=since)
    if json_:
        typer.echo(page.model_dump_json(indent=2))
        return
    if not page.jobs:
        typer.echo("no jobs", err=True)
    for job in page.jobs:
        typer.echo(
            f"{_short(job.id, 64)}\t{job.status}\t{job.progress:4.0%}\t"
            f"{job.created_at:%Y-%m-%d %H:%M}\t{_short(job.question, 70)}"
        )
    if page.next_before is not None:
        typer.echo(f"more: --before {page.next_before.isoformat()}", err=True)


@jobs.command("status")
def status(
    job_id: JobId,
    json_: JsonOutput = False,
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = None,
) -> None:
    """A job's status, stage, progress, counts, usage and times."""
    with _client(server, api_key) as client:
        job = client.get(job_id)
    if json_:
        typer.echo(job.model_dump_json(indent=2))
        return
    for line in _describe(job):
        typer.echo(for_terminal(line))


@jobs.command("sources")
def sources(
    job_id: JobId,
    json_: JsonOutput = False,
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = None,
) -> None:
    """A finished job's candidate sources: score, tier, whether cited, and why each was
    read or dropped."""
    with _client(server, api_key) as client:
        view = client.sources(job_id)
    if json_:
        typer.echo(view.model_dump_json(indent=2))
        return
    if not view.sources:
        typer.echo(f"no sources stored for {job_id} (the job is {for_terminal(view.status)})")
        return
    for source in view.sources:
        mark = _short("cited" if source.cited else (source.decision or "-"), 7)
        tier = _short(source.tier, 14)
        typer.echo(f"{source.final:.2f}  {tier:<14} {mark:<7} {_short(source.url, 70)}")
        typer.echo(f"      {_short(source.reason, 90)}")


@jobs.command("queue")
def queue(server: Server = DEFAULT_SERVER, api_key: ApiKey = None) -> None:
    """Your jobs per state on the service, and its concurrency."""
    with _client(server, api_key) as client:
        view = client.queue()
    typer.echo(for_terminal(_pairs(view.counts)))
    typer.echo(f"running here {view.running_here} of at most {view.max_concurrent_jobs}")


@jobs.command("watch")
def watch(
    job_id: JobId,
    json_events: JsonEvents = False,
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = None,
) -> None:
    """Follow a job live until it ends; exits like 'deepresearch run'. Stopping the watch
    (Ctrl-C) leaves the job running; watching again replays what was missed."""
    with _client(server, api_key) as client:
        _watch(client, job_id, json_events=json_events)


@jobs.command("reply")
def reply(
    job_id: JobId,
    answer: Annotated[
        str | None, typer.Argument(help="The answer to the job's clarifying question.")
    ] = None,
    approve: Approve = False,
    brief: Brief = None,
    sub_question: SubQuestion = None,
    drop: Drop = None,
    gap: Gap = None,
    edit: Edit = None,
    feedback: Feedback = None,
    cancel: Cancel = False,
    watch: Annotated[bool, typer.Option("--watch", help="Then watch it, like 'watch'.")] = False,
    json_events: JsonEvents = False,
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = None,
) -> None:
    """Answer what waiting job JOB_ID asks (as 'deepresearch reply' answers a run), or
    cancel it (exit 1); with --watch, follow it on."""
    value = answer_of(
        f"deepresearch jobs reply {job_id}",
        answer,
        approve=approve,
        brief=brief,
        sub_question=sub_question,
        drop=drop,
        gap=gap,
        cancel=cancel,
        edit=edit,
        feedback=feedback,
    )
    body = (
        {"answer": value}
        if isinstance(value, str)
        else {key: item for key, item in value.items() if item is not None}
    )
    with _client(server, api_key) as client:
        job = _answer(client, job_id, body)
        if job.status == "CANCELLED":
            say(f"job {job_id} cancelled")
            raise typer.Exit(EXIT_FAILED)
        say(f"answered; job {job_id} goes on ({job.status})")
        if watch:
            _watch(client, job_id, json_events=json_events)


def _answer(client: ServiceClient, job_id: str, body: dict[str, Any]) -> JobView:
    """The job after the answer; an answer of the wrong kind (text to a plan review) is
    refused with this command's flags for what the job asks, not the API's JSON."""
    from deepresearch.cli.pause import how_to_answer
    from deepresearch.service.client import ServiceRequestError
    from deepresearch.service.jobs import WRONG_REPLY

    try:
        return client.answer(job_id, body)
    except ServiceRequestError as exc:
        if exc.kind != WRONG_REPLY:
            raise
        asked = client.get(job_id).input_request
        if asked is None:  # answered meanwhile: the service's words
            raise
        hint = how_to_answer(asked.kind, f"deepresearch jobs reply {job_id}")
        raise ServiceRequestError(
            exc.message, hint=hint, status=exc.status, kind=exc.kind
        ) from None


@jobs.command("cancel")
def cancel(job_id: JobId, server: Server = DEFAULT_SERVER, api_key: ApiKey = None) -> None:
    """Cancel a job: a queued one at once, a running one within seconds."""
    with _client(server, api_key) as client:
        job = client.cancel(job_id)
    if job.status == "CANCELLED":
        typer.echo(f"cancelled {for_terminal(job.id)}")
    else:
        typer.echo(f"cancelling {for_terminal(job.id)} ({job.status}); it stops within seconds")


@jobs.command("report")
def report(
    job_id: JobId,
    fmt: options.ReportFormat = Format.md,
    out: Annotated[
        Path | None, typer.Option(help="Write here instead of stdout (- is stdout).")
    ] = None,
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = None,
) -> None:
    """Print or write the report of a finished job: md and html as the service renders
    them; every other format as 'deepresearch report' writes it."""
    target = check_output(out, fmt.value)
    with _client(server, api_key) as client:
        data: str | bytes
        if fmt is Format.md:
            data = client.report(job_id, "md")
        elif fmt is Format.html:
            data = client.report(job_id, "html")
        else:
            from deepresearch.export.formats import render_bytes
            from deepresearch.recipes.registry import get_recipe

            recipe = get_recipe(client.get(job_id).recipe)
            document = client.document(job_id, recipe.result_model)
            fonts = settings_from({}).pdf_fonts if fmt is Format.pdf else []
            data = render_bytes(recipe, document, fmt.value, pdf_fonts=fonts)
    write_output(target, data, saved="the report stays on the service: try another --out")
    if target != STDOUT:
        say(f"wrote {target}")


# watching ------------------------------------------------------------------------------
def _watch(client: ServiceClient, job_id: str, *, json_events: bool) -> NoReturn:
    from deepresearch.cli.live import Renderer

    stream = client.events(job_id)
    try:
        with Renderer(json_events=json_events) as renderer:
            for event in stream:
                renderer(event)
                if event.type == "input_requested" and _waits(client, job_id):
                    break
    except KeyboardInterrupt:
        typer.echo(err=True)
        say(f"stopped watching; the job runs on: deepresearch jobs watch {job_id}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    _exit_for(client, job_id, stream.terminal)


def _waits(client: ServiceClient, job_id: str, *, settle_s: float = 5.0) -> bool:
    """Whether the job waits for a person now (a replayed stream shows past requests too).
    The worker stores ``input_requested`` before the job's status says so, so a job still
    RUNNING is asked again for up to ``settle_s`` seconds; one that went on (an answered,
    past request) is RUNNING all along and is then followed as before."""
    import time

    deadline = time.monotonic() + settle_s
    while True:
        status = client.get(job_id).status
        if status != "RUNNING" or time.monotonic() >= deadline:
            return status == "AWAITING_INPUT"
        time.sleep(0.1)


def _exit_for(client: ServiceClient, job_id: str, terminal: RunEvent | None) -> NoReturn:
    """Say how the job ended and exit with ``deepresearch run``'s code for it; a job that
    waits for an answer: what it asks, and exit 4."""
    if terminal is None and _waits(client, job_id):
        asked = client.get(job_id).input_request
        if asked is None:  # answered meanwhile by someone else
            say(f"job {job_id} was waiting for an answer: deepresearch jobs watch {job_id}")
        else:
            from deepresearch.cli.pause import show_waiting

            show_waiting(asked, reply=f"deepresearch jobs reply {job_id}")
        say(f"(the API: POST /v1/research/{job_id}/input; docs/service.md, Steering a job)")
        raise typer.Exit(EXIT_WAITING)
    if terminal is None:  # it ended without a terminal event: it expired while queued
        job = client.get(job_id)
        say(f"job {job_id} is {job.status}" + (f": {job.error}" if job.error else ""))
        raise typer.Exit(EXIT_OK if job.status == "COMPLETED" else EXIT_FAILED)
    if terminal.type == "run_cancelled":
        say(f"job {job_id} was cancelled")
        raise typer.Exit(EXIT_FAILED)
    if terminal.type == "run_expired":
        say(f"job {job_id} expired: {terminal.message}")
        raise typer.Exit(EXIT_FAILED)
    if terminal.type == "run_failed":
        error(f"job {job_id} failed: {terminal.message}", code=EXIT_FAILED)
    from deepresearch.models.event_payloads import RunCompleted
    from deepresearch.models.report import REPLY_KINDS

    kind = terminal.data.kind if isinstance(terminal.data, RunCompleted) else ""
    say(
        f"{kind or 'the'} report is ready: deepresearch jobs report {job_id} "
        "[--format md|html|json|pdf|docx] [--out FILE]"
    )
    if kind in REPLY_KINDS:
        summary = client.report_model(job_id).summary
        if summary:
            say(summary[0].text)
    raise typer.Exit(EXIT_ABORT if kind == "abort" else EXIT_OK)


# showing -------------------------------------------------------------------------------
def _describe(job: JobView) -> list[str]:
    stage = f"  stage {job.stage}" if job.stage else ""
    cancelling = "  (cancel requested)" if job.cancel_requested and job.status == "RUNNING" else ""
    lines = [
        f"{job.id}  {job.status}  {job.progress:.0%}{stage}{cancelling}",
        f"question  {job.question}",
        f"recipe    {job.recipe}" + (f"  ({_pairs(job.options)})" if job.options else ""),
    ]
    times = [
        f"{name} {_when(value)}"
        for name, value in (
            ("created", job.created_at),
            ("started", job.started_at),
            ("finished", job.finished_at),
            ("expires", job.expires_at),
        )
        if value is not None
    ]
    lines.append("times     " + ", ".join(times))
    if job.counts:
        lines.append(f"counts    {_pairs(job.counts)}")
    if job.usage:
        usage = job.usage
        lines.append(
            f"usage     {usage.get('calls', 0)} model calls, "
            f"{usage.get('input_tokens', 0)}+{usage.get('output_tokens', 0)} tokens"
        )
    if job.error:
        lines.append(f"error     {job.error}")
    return lines


def _pairs(values: dict[str, Any]) -> str:
    return ", ".join(f"{key} {_short(str(value), 80)}" for key, value in sorted(values.items()))


def _when(value: datetime) -> str:
    return f"{value:%Y-%m-%d %H:%M:%S %Z}".strip()


def _short(text: str, width: int) -> str:
    """Untrusted text on one line, escaped for the terminal, at most ``width`` long."""
    text = for_terminal(" ".join(text.split()))
    return text if len(text) <= width else text[: width - 1] + "…"


def _parse_time(value: str) -> datetime:
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        error(
            f"--before {value!r} is not an ISO time", "use the value 'list' printed after 'more:'"
        )
