"""``deepresearch run``: research a question (or resume a run) and write the report."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from deepresearch.cli import common, options
from deepresearch.cli.choices import AuditMode, Format, OnModelUnavailable, Switch
from deepresearch.cli.running import (
    Remember,
    check_target,
    failed,
    interrupted,
    live,
    note_started,
    recorder,
    remembered_options,
    write_report,
    written,
)
from deepresearch.core.ids import new_run_id
from deepresearch.errors import ConfigError, DeepResearchError, InvalidReply

if TYPE_CHECKING:
    from deepresearch.models.report import Report
    from deepresearch.settings import Settings

# the options only `run` takes (the shared ones are in cli/options.py)
Question = Annotated[str | None, typer.Argument(help="The question to research.")]
RunFormat = Annotated[
    Format | None,
    typer.Option("--format", help="Report format (default md; a resume keeps the run's)."),
]
RunOut = Annotated[
    Path | None,
    typer.Option(
        help="Where to write the report (default report.<format>; - for stdout; "
        "a resume keeps the run's)."
    ),
]
Resume = Annotated[str | None, typer.Option(help="Resume the run with this id.", metavar="RUN_ID")]
RunId = Annotated[str | None, typer.Option(help="Id for a new run (default: generated).")]
Audit = Annotated[
    AuditMode | None,
    typer.Option(help="strict: remove unsupported sentences; mark: flag them; off: no audit."),
]
Images = Annotated[
    Switch | None,
    typer.Option(
        help="Figures from the cited sources in the report (default on; off: text and "
        "tables only).",
    ),
]
Unavailable = Annotated[
    OnModelUnavailable | None,
    typer.Option(
        help="A model server that cannot be reached at start: stop with exit code 2 "
        "(fail, the default) or run without it and write an extractive report."
    ),
]
Council = Annotated[
    bool | None,
    typer.Option(
        "--council/--no-council",
        help="Several planners propose, the judge scores (default: on at --depth deep).",
    ),
]
Presearch = Annotated[
    bool | None,
    typer.Option(
        "--presearch/--no-presearch",
        help="Before planning, search the question's names once for recent context "
        "(default: on when a model plans).",
    ),
]
CouncilModels = Annotated[
    str | None,
    typer.Option(help="Council members: provider:model,... (default: planner personas)."),
]
Evaluate = Annotated[bool, typer.Option("--eval", help="Evaluate the report when the run ends.")]
RecordTo = Annotated[
    Path | None,
    typer.Option(
        "--record",
        metavar="DIR",
        help="Also copy the run's recording (replies, results, pages) to DIR for replay.",
    ),
]
StopAfter = Annotated[
    str | None, typer.Option(hidden=True, help="Pause after this stage (for debugging).")
]


@options.with_backends(roles=True)
def run(
    question: Question = None,
    backends: options.Backends = options.NOT_GIVEN,
    depth: options.DepthOption = None,
    fmt: RunFormat = None,
    out: RunOut = None,
    json_events: options.JsonEvents = False,
    resume: Resume = None,
    run_id: RunId = None,
    allow_host: options.AllowHost = None,
    no_clarify: options.NoClarify = False,
    review_plan: options.ReviewPlan = False,
    review_findings: options.ReviewFindings = False,
    review_report: options.ReviewReport = False,
    no_library: options.NoLibrary = False,
    audit: Audit = None,
    images: Images = None,
    min_domains: options.MinDomains = None,
    min_evidence: options.MinEvidence = None,
    on_model_unavailable: Unavailable = None,
    council: Council = None,
    presearch: Presearch = None,
    council_models: CouncilModels = None,
    evaluate: Evaluate = False,
    max_tokens: options.MaxTokens = None,
    max_cost: options.MaxCost = None,
    max_time: options.MaxTime = None,
    config: options.Config = None,
    record_to: RecordTo = None,
    stop_after: StopAfter = None,
) -> None:
    """Research QUESTION and write a cited report."""
    common.use_config_file(config)
    # everything the user gave is checked before any work (and before any file is written)
    question, resume, run_id = _checked_ids(question, resume, run_id)
    if out is not None and not resume:  # a resume's is checked once its record is read
        check_target(out, fmt or Format.md, json_events)
    if record_to is not None and record_to.exists() and any(record_to.iterdir()):
        common.error(f"--record {record_to} is not empty", "give --record a new or empty folder")
    overrides: dict[str, Any] = {
        **backends.overrides(allow_host),
        "depth": depth.value if depth else None,
        "no_clarify": no_clarify or None,
        "review_plan": review_plan or None,
        "review_findings": review_findings or None,
        "review_report": review_report or None,
        "use_library": False if no_library else None,
        "audit": audit.value if audit else None,
        "images": None if images is None else images is Switch.on,
        "min_domains": min_domains,
        "min_evidence": min_evidence,
        "on_model_unavailable": on_model_unavailable.value if on_model_unavailable else None,
        "council": council,
        "presearch": presearch,
        "council_models": council_models,
        "evaluate": evaluate or None,
        "record_runs": True if record_to is not None else None,
        "max_tokens": max_tokens,
        "max_cost": max_cost,
        "max_time": max_time,
    }
    settings, run_id, fmt, target, remember = _start(
        question, options.given(overrides), resume, run_id, fmt, out, json_events
    )
    _drive(
        settings,
        run_id,
        question=question,
        resume=bool(resume),
        target=target,
        fmt=fmt,
        json_events=json_events,
        remember=remember,
        stop_after=stop_after,
        record_to=record_to,
    )


def _checked_ids(
    question: str | None, resume: str | None, run_id: str | None
) -> tuple[str | None, str | None, str | None]:
    """The question, the run to resume and the new run's id, checked (exit 2 if not)."""
    if run_id and resume:
        common.error(
            "--run-id names a new run; use --resume alone to continue one",
            f"deepresearch run --resume {resume}",
        )
    if resume:
        resume = common.run_id_or_exit(resume, "--resume")
    elif question is None or not question.strip():
        common.error("give a question to research, or --resume RUN_ID")
    else:
        question = common.question_or_exit(question)
    if run_id is not None:
        run_id = common.run_id_or_exit(run_id, "--run-id")
    return question, resume, run_id


def _start(
    question: str | None,
    given: dict[str, Any],
    resume: str | None,
    run_id: str | None,
    fmt: Format | None,
    out: Path | None,
    json_events: bool,
) -> tuple[Settings, str, Format, Path, Remember]:
    """The run's settings, id, format and target, with its record written (a new run)
    or read (a resume: its options, format and output, unless given again now)."""
    # the runner (LangGraph, LangChain) loads here, not for --help
    from deepresearch.runner import load_run_record, save_run_record

    base = common.settings_from({})
    if resume:
        record = load_run_record(base, resume) or {}
        given = remembered_options(record, given)
        fmt, out = _remembered_output(record, fmt, out)
    fmt = fmt or Format.md
    target = check_target(out, fmt, json_events)
    settings = common.settings_from(given)
    if run_id is not None and load_run_record(settings, run_id) is not None:
        common.error(
            f"a run with id {run_id!r} already exists",
            f"choose another --run-id, or continue it with --resume {run_id}",
        )
    run_id = resume or run_id or new_run_id()
    if not resume and question:
        if settings.corpus_dir is not None:  # a resume from another folder finds it
            given["corpus_dir"] = settings.corpus_dir.expanduser().resolve()
        save_run_record(settings, run_id, question, options.storable(given))
    # a resumed run without a record (started by the library) gets none
    kept = not resume or load_run_record(settings, run_id) is not None
    remember = recorder(settings, run_id, kept=kept)
    note_started(remember, target, fmt)
    return settings, run_id, fmt, target, remember


def _remembered_output(
    record: dict[str, Any], fmt: Format | None, out: Path | None
) -> tuple[Format | None, Path | None]:
    """Where and how the run's report was to be written, unless given again now."""
    if fmt is None and str(record.get("format")) in Format.__members__:
        fmt = Format(str(record["format"]))
    if out is None and isinstance(record.get("out"), str):
        out = Path(str(record["out"]))
    return fmt, out


def resume_with(run_id: str, answer: Any, *, json_events: bool = False) -> None:
    """``deepresearch reply``: continue waiting run ``run_id`` with ``answer``, with the
    options, output path and format it was started with (``--cancel``'s answer ends it
    as cancelled instead)."""
    from deepresearch.cli.pause import CANCEL, cancel
    from deepresearch.records import CANCELLED

    base = common.settings_from({})
    record = load_run_record_or_none(base, run_id)
    given = remembered_options(record or {}, {})
    fmt, out = _remembered_output(record or {}, None, None)
    settings = common.settings_from(given)
    if record is not None and record.get("status") == CANCELLED:
        common.error(
            f"run {run_id} was cancelled; it takes no answer",
            f"deepresearch run --resume {run_id} asks again",
        )
    if answer == CANCEL:
        cancel(settings, run_id)
    _check_waits(settings, run_id)  # before its record says it runs again
    fmt = fmt or Format.md
    target = check_target(out, fmt, json_events)
    remember = recorder(settings, run_id, kept=record is not None)
    remember(status="running", pid=os.getpid())
    _drive(
        settings,
        run_id,
        question=None,
        resume=True,
        target=target,
        fmt=fmt,
        json_events=json_events,
        remember=remember,
        answer=answer,
    )


def load_run_record_or_none(settings: Settings, run_id: str) -> dict[str, Any] | None:
    from deepresearch.runner import load_run_record

    return load_run_record(settings, run_id)


def _drive(
    settings: Settings,
    run_id: str,
    *,
    question: str | None,
    resume: bool,
    target: Path,
    fmt: Format,
    json_events: bool,
    remember: Remember,
    stop_after: str | None = None,
    answer: Any = None,
    record_to: Path | None = None,
) -> NoReturn:
    """Run (or resume) the run, answer its pauses at a terminal, and write its report
    (and, with ``record_to``, copy its recording there: ``run --record DIR``)."""
    from deepresearch.cli.pause import CANCEL, ask, cancel, interactive, show_waiting
    from deepresearch.models.pause import InputRequest

    while True:
        report = _run_once(
            settings, run_id, question, resume, json_events, remember, stop_after, answer
        )
        if not isinstance(report, InputRequest):
            break
        remember(status="awaiting_input")
        answer = ask(report) if interactive() and not json_events else None
        if answer is None:
            show_waiting(report)
            raise typer.Exit(common.EXIT_WAITING)
        if answer == CANCEL:
            cancel(settings, run_id, checked=True)
        question, resume = None, True
    _finish(report, settings, run_id, target, fmt, remember, record_to)


def _run_once(
    settings: Settings,
    run_id: str,
    question: str | None,
    resume: bool,
    json_events: bool,
    remember: Remember,
    stop_after: str | None,
    answer: Any,
) -> Any:
    """One leg of the run with the live view: up to its end, its pause or its stop."""
    from deepresearch.runner import run_research

    try:
        return live(
            json_events,
            lambda sinks: run_research(
                question,
                settings,
                run_id=run_id,
                resume=resume,
                sinks=sinks,
                stop_after=stop_after,
                reply=answer,
            ),
        )
    except DeepResearchError as exc:
        if answer is not None and isinstance(exc, ConfigError) and _still_waits(settings, run_id):
            remember(status="awaiting_input")  # a bad answer: the run still waits
            if isinstance(exc, InvalidReply):  # the kind of answer it asks, in our flags
                from deepresearch.cli.pause import how_to_answer

                common.error(exc.message, how_to_answer(exc.asked, f"deepresearch reply {run_id}"))
            common.fail(exc)
        failed(remember, settings, exc)  # past its pause: a reply's failure is the run's
    except KeyboardInterrupt:
        interrupted(remember, f"deepresearch run --resume {run_id}")


def _check_waits(settings: Settings, run_id: str) -> None:
    """Exit 2 unless run ``run_id`` waits for an answer, saying how it stands and what to
    do instead (as ``report`` says it); its record is left as it is."""
    import asyncio

    from deepresearch.cli.runs import unfinished
    from deepresearch.records import run_row, waiting_input

    try:
        if asyncio.run(waiting_input(settings, run_id)) is not None:
            return
        row = asyncio.run(run_row(settings, run_id))
    except DeepResearchError as exc:
        common.fail(exc)
    if row is not None and row.status == "complete":
        hint = f"it is complete: deepresearch report {run_id}"
    else:
        stands, what_to_do = unfinished(
            run_id, None if row is None else row.status, None if row is None else row.error
        )
        hint = f"{stands}; {what_to_do}"
    common.error(f"run {run_id} is not waiting for input", hint)


def _still_waits(settings: Settings, run_id: str) -> bool:
    """Whether run ``run_id``'s checkpoint still holds the pause: the answer was refused
    before anything ran. An error after the run went past it (the search could not be
    reached) is the run's failure, whatever kind of error it is."""
    import asyncio

    from deepresearch.records import waiting_input

    try:
        return asyncio.run(waiting_input(settings, run_id)) is not None
    except DeepResearchError:
        return False


def _finish(
    report: Report | None,
    settings: Settings,
    run_id: str,
    target: Path,
    fmt: Format,
    remember: Remember,
    record_to: Path | None,
) -> NoReturn:
    """Write the finished run's report (a stopped run says how to resume) and exit with
    the report's code."""
    from deepresearch.export.formats import render_bytes
    from deepresearch.recipes.registry import DEFAULT_RECIPE, get_recipe
    from deepresearch.records import now

    if report is None:
        remember(status="paused", finished=now())
        common.say(f"paused; resume with: deepresearch run --resume {run_id}")
        raise typer.Exit(common.EXIT_OK)
    remember(status="complete", kind=report.kind, finished=now(), error=None)
    recipe = get_recipe(DEFAULT_RECIPE)
    write_report(
        target, render_bytes(recipe, report, fmt.value, pdf_fonts=settings.pdf_fonts), run_id
    )
    written(f"{report.kind} report", target, run_id)
    if record_to is not None:
        from deepresearch.cli.replay import record as copy_recording

        copy_recording(run_id, record_to)
    from deepresearch.models.report import REPLY_KINDS

    if report.kind in REPLY_KINDS and report.summary:
        common.say(report.summary[0].text)
    raise typer.Exit(common.EXIT_ABORT if report.kind == "abort" else common.EXIT_OK)
