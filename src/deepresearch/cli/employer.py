"""``deepresearch employer``: research an employer and write its profile (seed 000's
recipe), with the same model, search and output options as ``deepresearch run``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

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
from deepresearch.cli.output import check_destination, deliver, report_bytes
from deepresearch.cli.run import Format
from deepresearch.errors import DeepResearchError
from deepresearch.recipes.employer import (
    EmployerRequest,
    load_employer_lists,
    run_employer,
)


def employer(
    company: Annotated[
        str | None, typer.Argument(help="The employer's name (optional with --job-description).")
    ] = None,
    role: Annotated[str | None, typer.Option(help="The job title to research for.")] = None,
    job_description: Annotated[
        Path | None,
        typer.Option(help="A text file with the job posting.", metavar="FILE"),
    ] = None,
    queries: Annotated[
        int, typer.Option(min=1, max=4, help="Searches per attempt (seed 000: 2).")
    ] = 2,
    result_chars: Annotated[
        int, typer.Option(min=200, max=8000, help="Characters kept per search (seed 000: 1500).")
    ] = 1500,
    lists: Annotated[
        Path | None,
        typer.Option(
            help="A TOML file extending the pruning lists and industries.", metavar="FILE"
        ),
    ] = None,
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
    fmt: Annotated[Format, typer.Option("--format", help="Profile format.")] = Format.md,
    out: Annotated[
        Path | None,
        typer.Option(help="Where to write the profile (default employer-profile.<format>)."),
    ] = None,
    json_events: options.JsonEvents = False,
    run_id: Annotated[str | None, typer.Option(help="Id for the run (default: generated).")] = None,
    allow_host: options.AllowHost = None,
    config: options.Config = None,
) -> None:
    """Research an employer: a traced profile behind a data-quality firewall."""
    use_config_file(config)
    description = None
    if job_description is not None:
        try:
            description = job_description.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            typer.echo(f"error: cannot read {job_description}: {exc}", err=True)
            raise typer.Exit(EXIT_USAGE) from None
    try:
        request = EmployerRequest(
            company=company,
            role=role,
            job_description=description,
            max_queries=queries,
            max_result_chars=result_chars,
        )
    except ValidationError as exc:
        problem = exc.errors()[0]["msg"].removeprefix("Value error, ")
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    overrides = options.model_and_search_overrides(
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
    )
    settings = settings_from({k: v for k, v in overrides.items() if v is not None})
    target = out or Path(f"employer-profile.{fmt.value}")
    check_destination(fmt.value, target)
    renderer = Renderer(json_events=json_events)
    try:
        employer_lists = load_employer_lists(lists) if lists is not None else None
        with renderer:
            result = asyncio.run(
                run_employer(
                    request, settings, sinks=[renderer], lists=employer_lists, run_id=run_id
                )
            )
    except DeepResearchError as exc:
        fail(exc)
    except KeyboardInterrupt:
        typer.echo("\ninterrupted", err=True)
        raise typer.Exit(130) from None
    written = deliver(report_bytes(result, fmt.value, settings), target)
    what = "early exit (no profile)" if result.early_exit else "employer profile"
    where = "standard output" if written is None else str(written)
    typer.echo(f"{what} written to {where} (run {result.run_id})", err=True)
    if result.early_exit:
        typer.echo(f"reason: {result.reranker.early_exit_reason}", err=True)
    raise typer.Exit(EXIT_ABORT if result.early_exit else EXIT_OK)
