"""``deepresearch employer``: research an employer and write its profile (seed 000's
recipe), with the same model, search and output options as ``deepresearch run``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli import options
from deepresearch.cli.common import (
    EXIT_ABORT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    STDOUT,
    check_output,
    error,
    fail,
    run_id_or_exit,
    say,
    settings_from,
    shown,
    use_config_file,
    write_output,
)
from deepresearch.cli.run import Format
from deepresearch.errors import DeepResearchError


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
        typer.Option(
            help="Where to write the profile (default employer-profile.<format>; - for stdout)."
        ),
    ] = None,
    json_events: options.JsonEvents = False,
    run_id: Annotated[str | None, typer.Option(help="Id for the run (default: generated).")] = None,
    allow_host: options.AllowHost = None,
    config: options.Config = None,
) -> None:
    """Research an employer: a traced profile behind a data-quality firewall."""
    # the recipe, pydantic and the live view load here, not for --help (issue 19)
    import asyncio

    from pydantic import ValidationError

    from deepresearch.cli.live import Renderer
    from deepresearch.recipes.employer import (
        EmployerRequest,
        load_employer_lists,
        render_employer,
        run_employer,
    )

    use_config_file(config)
    if run_id is not None:
        run_id = run_id_or_exit(run_id, "--run-id")
    target = out or Path(f"employer-profile.{fmt.value}")
    if target == STDOUT and json_events:
        error("--out - and --json-events both want standard output", "write the profile to a file")
    check_output(target)
    description = None
    if job_description is not None:
        try:
            description = job_description.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            error(f"cannot read {job_description}: {exc}")
    try:
        request = EmployerRequest(
            company=company,
            role=role,
            job_description=description,
            max_queries=queries,
            max_result_chars=result_chars,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        problem = first["msg"].removeprefix("Value error, ")
        error(f"{where}: {problem}" if where else problem)
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
        typer.echo(err=True)
        say("interrupted")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    write_output(target, render_employer(result, fmt.value))
    what = "early exit (no profile)" if result.early_exit else "employer profile"
    say(f"{what} written to {shown(target)} (run {result.run_id})")
    if result.early_exit:
        say(f"reason: {result.reranker.early_exit_reason}")
    raise typer.Exit(EXIT_ABORT if result.early_exit else EXIT_OK)
