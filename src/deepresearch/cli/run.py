"""``deepresearch run``: research a question (or resume a run) and write the report."""

from __future__ import annotations

import os
from collections.abc import Callable
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from deepresearch.cli import options
from deepresearch.cli.common import (
    EXIT_ABORT,
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
    shown,
    use_config_file,
    write_output,
)
from deepresearch.core.ids import new_run_id
from deepresearch.errors import ConfigError, DeepResearchError

if TYPE_CHECKING:
    from deepresearch.settings import Settings


class Depth(StrEnum):
    quick = "quick"
    standard = "standard"
    deep = "deep"


class AuditMode(StrEnum):
    strict = "strict"
    mark = "mark"
    off = "off"


class OnModelUnavailable(StrEnum):
    fail = "fail"
    extractive = "extractive"


class Format(StrEnum):
    md = "md"
    html = "html"
    json = "json"
    pdf = "pdf"
    docx = "docx"


def run(
    question: Annotated[str | None, typer.Argument(help="The question to research.")] = None,
    model: options.Model = None,
    planner_model: options.PlannerModel = None,
    researcher_model: options.ResearcherModel = None,
    summarizer_model: options.SummarizerModel = None,
    writer_model: options.WriterModel = None,
    judge_model: options.JudgeModel = None,
    model_base_url: options.ModelBaseUrl = None,
    search: options.Search = None,
    searxng_url: options.SearxngUrl = None,
    corpus: options.Corpus = None,
    depth: Annotated[Depth | None, typer.Option(help="How much to research.")] = None,
    fmt: Annotated[
        Format | None,
        typer.Option("--format", help="Report format (default md; a resume keeps the run's)."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Where to write the report (default report.<format>; - for stdout; "
            "a resume keeps the run's)."
        ),
    ] = None,
    json_events: options.JsonEvents = False,
    resume: Annotated[
        str | None, typer.Option(help="Resume the run with this id.", metavar="RUN_ID")
    ] = None,
    run_id: Annotated[
        str | None, typer.Option(help="Id for a new run (default: generated).")
    ] = None,
    allow_host: options.AllowHost = None,
    no_clarify: options.NoClarify = False,
    review_plan: options.ReviewPlan = False,
    review_findings: options.ReviewFindings = False,
    audit: Annotated[
        AuditMode | None,
        typer.Option(help="strict: remove unsupported sentences; mark: flag them; off: no audit."),
    ] = None,
    min_domains: Annotated[
        int | None, typer.Option(help="Quality gate: distinct domains needed.")
    ] = None,
    min_evidence: Annotated[
        int | None, typer.Option(help="Quality gate: verified quotes needed.")
    ] = None,
    on_model_unavailable: Annotated[
        OnModelUnavailable | None,
        typer.Option(
            help="A model server that cannot be reached at start: stop with exit code 2 "
            "(fail, the default) or run without it and write an extractive report."
        ),
    ] = None,
    council: Annotated[
        bool | None,
        typer.Option(
            "--council/--no-council",
            help="Several planners propose, the judge scores (default: on at --depth deep).",
        ),
    ] = None,
    council_models: Annotated[
        str | None,
        typer.Option(help="Council members: provider:model,... (default: planner personas)."),
    ] = None,
    evaluate: Annotated[
        bool, typer.Option("--eval", help="Evaluate the report when the run ends.")
    ] = False,
    max_tokens: options.MaxTokens = None,
    max_cost: options.MaxCost = None,
    max_time: options.MaxTime = None,
    config: options.Config = None,
    record_to: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="DIR",
            help="Also copy the run's recording (replies, results, pages) to DIR for replay.",
        ),
    ] = None,
    stop_after: Annotated[
        str | None, typer.Option(hidden=True, help="Pause after this stage (for debugging).")
    ] = None,
) -> None:
    """Research QUESTION and write a cited report."""
    # the runner (LangGraph, LangChain) and the live view load here, not for --help
    from deepresearch.runner import load_run_record, save_run_record

    use_config_file(config)
    # everything the user gave is checked before any work (and before any file is written)
    if run_id and resume:
        error(
            "--run-id names a new run; use --resume alone to continue one",
            f"deepresearch run --resume {resume}",
        )
    if resume:
        resume = run_id_or_exit(resume, "--resume")
    elif question is None or not question.strip():
        error("give a question to research, or --resume RUN_ID")
    else:
        question = question_or_exit(question)
    if run_id is not None:
        run_id = run_id_or_exit(run_id, "--run-id")
    if out is not None and not resume:  # a resume's is checked once its record is read
        _check_target(out, fmt or Format.md, json_events)
    if record_to is not None and record_to.exists() and any(record_to.iterdir()):
        error(f"--record {record_to} is not empty", "give --record a new or empty folder")
    overrides: dict[str, Any] = {
        **options.model_and_search_overrides(
            model=model,
            planner_model=planner_model,
            researcher_model=researcher_model,
            summarizer_model=summarizer_model,
            writer_model=writer_model,
            judge_model=judge_model,
            model_base_url=model_base_url,
            search=search,
            searxng_url=searxng_url,
            corpus=corpus,
            allow_host=allow_host,
        ),
        "depth": depth.value if depth else None,
        "no_clarify": no_clarify or None,
        "review_plan": review_plan or None,
        "review_findings": review_findings or None,
        "audit": audit.value if audit else None,
        "min_domains": min_domains,
        "min_evidence": min_evidence,
        "on_model_unavailable": on_model_unavailable.value if on_model_unavailable else None,
        "council": council,
        "council_models": council_models,
        "evaluate": evaluate or None,
        "record_runs": True if record_to is not None else None,
        "max_tokens": max_tokens,
        "max_cost": max_cost,
        "max_time": max_time,
    }
    given = {key: value for key, value in overrides.items() if value is not None}
    base = settings_from({})
    if resume:
        record = load_run_record(base, resume) or {}
        remembered = record.get("options")
        if isinstance(remembered, dict):
            given = {**remembered, **given}
        # where and how the run's report was to be written, unless given again now
        if fmt is None and str(record.get("format")) in Format.__members__:
            fmt = Format(str(record["format"]))
        if out is None and isinstance(record.get("out"), str):
            out = Path(str(record["out"]))
    fmt = fmt or Format.md
    target = _check_target(out, fmt, json_events)
    settings = settings_from(given)
    if run_id is not None and load_run_record(settings, run_id) is not None:
        error(
            f"a run with id {run_id!r} already exists",
            f"choose another --run-id, or continue it with --resume {run_id}",
        )
    run_id = resume or run_id or new_run_id()
    if not resume and question:
        if settings.corpus_dir is not None:  # a resume from another folder finds it
            given["corpus_dir"] = settings.corpus_dir.expanduser().resolve()
        save_run_record(
            settings,
            run_id,
            question,
            {k: str(v) if isinstance(v, Path) else v for k, v in given.items()},
        )
    # a resumed run without a record (started by the library) gets none
    kept = not resume or load_run_record(settings, run_id) is not None
    remember = partial(_remember, settings, run_id) if kept else _forget
    remember(
        out=str(target) if target == STDOUT else str(target.absolute()),
        format=fmt.value,
        status="running",
        pid=os.getpid(),
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


def resume_with(run_id: str, answer: Any, *, json_events: bool = False) -> None:
    """``deepresearch reply``: continue waiting run ``run_id`` with ``answer``, with the
    options, output path and format it was started with (``--cancel``'s answer ends it
    as cancelled instead)."""
    from deepresearch.cli.pause import CANCEL, cancel
    from deepresearch.records import CANCELLED

    base = settings_from({})
    record = load_run_record_or_none(base, run_id)
    given: dict[str, Any] = {}
    if record is not None and isinstance(record.get("options"), dict):
        given = dict(record["options"])
    fmt = Format.md
    if record is not None and str(record.get("format")) in Format.__members__:
        fmt = Format(str(record["format"]))
    out = Path(str(record["out"])) if record and isinstance(record.get("out"), str) else None
    settings = settings_from(given)
    if record is not None and record.get("status") == CANCELLED:
        error(
            f"run {run_id} was cancelled; it takes no answer",
            f"deepresearch run --resume {run_id} asks again",
        )
    if answer == CANCEL:
        cancel(settings, run_id)
    target = _check_target(out, fmt, json_events)
    remember = partial(_remember, settings, run_id) if record is not None else _forget
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
    remember: Callable[..., None],
    stop_after: str | None = None,
    answer: Any = None,
    record_to: Path | None = None,
) -> NoReturn:
    """Run (or resume) the run, answer its pauses at a terminal, and write its report
    (and, with ``record_to``, copy its recording there: ``run --record DIR``)."""
    import asyncio

    from deepresearch.cli.live import Renderer
    from deepresearch.cli.pause import CANCEL, ask, cancel, interactive, show_waiting
    from deepresearch.export.formats import render_bytes
    from deepresearch.llm.redact import redact
    from deepresearch.models.pause import InputRequest
    from deepresearch.models.report import REPLY_KINDS
    from deepresearch.recipes.registry import DEFAULT_RECIPE, get_recipe
    from deepresearch.records import now
    from deepresearch.runner import run_research

    while True:
        renderer = Renderer(json_events=json_events)  # the live view stops while we ask
        try:
            with renderer:
                report = asyncio.run(
                    run_research(
                        question,
                        settings,
                        run_id=run_id,
                        resume=resume,
                        sinks=[renderer],
                        stop_after=stop_after,
                        reply=answer,
                    )
                )
        except DeepResearchError as exc:
            if answer is not None and isinstance(exc, ConfigError):
                remember(status="awaiting_input")  # a bad answer: the run still waits
            else:
                message = redact(exc.message, settings.secrets())
                remember(status="failed", error=message, finished=now())
            fail(exc)
        except KeyboardInterrupt:
            remember(status="interrupted", finished=now())
            typer.echo(err=True)
            say(f"interrupted; resume with: deepresearch run --resume {run_id}")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        if not isinstance(report, InputRequest):
            break
        remember(status="awaiting_input")
        answer = ask(report) if interactive() and not json_events else None
        if answer is None:
            show_waiting(report)
            raise typer.Exit(EXIT_WAITING)
        if answer == CANCEL:
            cancel(settings, run_id, checked=True)
        question, resume = None, True
    if report is None:
        remember(status="paused", finished=now())
        say(f"paused; resume with: deepresearch run --resume {run_id}")
        raise typer.Exit(EXIT_OK)
    remember(status="complete", kind=report.kind, finished=now(), error=None)
    write_output(
        target,
        render_bytes(get_recipe(DEFAULT_RECIPE), report, fmt.value, pdf_fonts=settings.pdf_fonts),
        saved=f"the run is saved: deepresearch report {run_id} --out FILE",
    )
    say(f"{report.kind} report written to {shown(target)} (run {run_id})")
    if record_to is not None:
        from deepresearch.cli.replay import record as copy_recording

        copy_recording(run_id, record_to)
    if report.kind in REPLY_KINDS and report.summary:
        say(report.summary[0].text)
    raise typer.Exit(EXIT_ABORT if report.kind == "abort" else EXIT_OK)


def _check_target(out: Path | None, fmt: Format, json_events: bool) -> Path:
    """Where the report goes (``out``, else ``report.<format>``); exit 2 before any work
    if it could not be written there (``check_output``: the file, and the rules for a
    binary format)."""
    if out == STDOUT and json_events:
        error("--out - and --json-events both want standard output", "write the report to a file")
    return check_output(out, fmt.value, default=Path(f"report.{fmt.value}"))


def _remember(settings: Settings, run_id: str, **fields: object) -> None:
    """Note in the run's record how it goes; a record that cannot be written costs the
    run nothing (``runs list`` shows what the record had)."""
    from deepresearch.records import update_run_record

    try:
        update_run_record(settings, run_id, **fields)
    except OSError as exc:
        say(f"warning: could not update the run record of {run_id} ({exc.strerror or exc})")


def _forget(**fields: object) -> None:
    pass
