"""``deepresearch run``: research a question (or resume a run) and write the report."""

from __future__ import annotations

import asyncio
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import (
    EXIT_ABORT,
    EXIT_OK,
    EXIT_USAGE,
    fail,
    settings_from,
    use_config_file,
)
from deepresearch.cli.live import Renderer
from deepresearch.cli.output import STDOUT, check_destination, deliver, report_bytes
from deepresearch.core.ids import new_run_id
from deepresearch.errors import DeepResearchError
from deepresearch.runner import load_run_record, run_research, save_run_record


class Depth(StrEnum):
    quick = "quick"
    standard = "standard"
    deep = "deep"


class AuditMode(StrEnum):
    strict = "strict"
    mark = "mark"
    off = "off"


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
    fmt: Annotated[Format, typer.Option("--format", help="Report format.")] = Format.md,
    out: Annotated[
        Path | None, typer.Option(help="Where to write the report (default report.<format>).")
    ] = None,
    json_events: options.JsonEvents = False,
    resume: Annotated[
        str | None, typer.Option(help="Resume the run with this id.", metavar="RUN_ID")
    ] = None,
    run_id: Annotated[
        str | None, typer.Option(help="Id for a new run (default: generated).")
    ] = None,
    allow_host: options.AllowHost = None,
    no_clarify: Annotated[
        bool, typer.Option(help="Never stop to ask a clarifying question.")
    ] = False,
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
    config: options.Config = None,
    stop_after: Annotated[
        str | None, typer.Option(hidden=True, help="Pause after this stage (for debugging).")
    ] = None,
) -> None:
    """Research QUESTION and write a cited report."""
    use_config_file(config)
    if not resume and not (question and question.strip()):
        typer.echo("error: give a question to research, or --resume RUN_ID", err=True)
        raise typer.Exit(EXIT_USAGE)
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
        "audit": audit.value if audit else None,
        "min_domains": min_domains,
        "min_evidence": min_evidence,
    }
    given = {key: value for key, value in overrides.items() if value is not None}
    base = settings_from({})
    if resume:
        record = load_run_record(base, resume)
        remembered = record.get("options") if record is not None else None
        if isinstance(remembered, dict):
            given = {**remembered, **given}
    settings = settings_from(given)
    if run_id and resume:
        typer.echo("error: --run-id names a new run; use --resume alone to continue one", err=True)
        raise typer.Exit(EXIT_USAGE)
    run_id = resume or run_id or new_run_id()
    if not resume and question:
        save_run_record(
            settings,
            run_id,
            question,
            {k: str(v) if isinstance(v, Path) else v for k, v in given.items()},
        )
    target = out or Path(f"report.{fmt.value}")
    check_destination(fmt.value, target)
    if target == STDOUT and json_events:
        typer.echo("error: --json-events already writes to stdout; pass --out FILE", err=True)
        raise typer.Exit(EXIT_USAGE)

    renderer = Renderer(json_events=json_events)
    try:
        with renderer:
            report = asyncio.run(
                run_research(
                    question,
                    settings,
                    run_id=run_id,
                    resume=bool(resume),
                    sinks=[renderer],
                    stop_after=stop_after,
                )
            )
    except DeepResearchError as exc:
        fail(exc)
    except KeyboardInterrupt:
        typer.echo(f"\ninterrupted; resume with: deepresearch run --resume {run_id}", err=True)
        raise typer.Exit(130) from None
    if report is None:
        typer.echo(f"paused; resume with: deepresearch run --resume {run_id}", err=True)
        raise typer.Exit(EXIT_OK)
    written = deliver(report_bytes(report, fmt.value, settings), target)
    where = "standard output" if written is None else str(written)
    typer.echo(f"{report.kind} report written to {where} (run {run_id})", err=True)
    if report.kind in ("chitchat", "refusal", "clarification") and report.summary:
        typer.echo(report.summary[0].text, err=True)
    raise typer.Exit(EXIT_ABORT if report.kind == "abort" else EXIT_OK)
