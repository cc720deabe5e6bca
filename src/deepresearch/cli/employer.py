"""``deepresearch employer``: research an employer and write its profile (seed 000's
recipe), with the same model, search and output options as ``deepresearch run``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

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
from deepresearch.core.ids import new_run_id
from deepresearch.errors import DeepResearchError

RECIPE = "employer"


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
    resume: Annotated[
        str | None, typer.Option(help="Resume the employer run with this id.", metavar="RUN_ID")
    ] = None,
    allow_host: options.AllowHost = None,
    config: options.Config = None,
) -> None:
    """Research an employer: a traced profile behind a data-quality firewall."""
    # the recipe, pydantic and the live view load here, not for --help (issue 19)
    import asyncio

    from deepresearch.cli.live import Renderer
    from deepresearch.export.formats import render_bytes
    from deepresearch.recipes.registry import get_recipe
    from deepresearch.runner import load_run_record, run_recipe, save_run_record

    use_config_file(config)
    recipe = get_recipe(RECIPE)
    if run_id and resume:
        error("--run-id names a new run; use --resume alone to continue one")
    if run_id is not None:
        run_id = run_id_or_exit(run_id, "--run-id")
    if resume is not None:
        resume = run_id_or_exit(resume, "--resume")
    if out == STDOUT and json_events:
        error("--out - and --json-events both want standard output", "write the profile to a file")
    target = check_output(out, fmt.value, default=Path(f"employer-profile.{fmt.value}"))
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
    given: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    files: dict[str, Path] = {"lists": lists} if lists is not None else {}
    request = None
    if resume:
        record = load_run_record(settings_from({}), resume) or {}
        remembered = record.get("options")
        if isinstance(remembered, dict):
            given = {**remembered, **given}
        kept = record.get("files")
        if isinstance(kept, dict) and not files:
            files = {name: Path(str(path)) for name, path in kept.items()}
    else:
        description = None
        if job_description is not None:
            try:
                description = job_description.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                error(f"cannot read {job_description}: {exc}")
        try:
            request = recipe.request(
                company,
                {
                    "role": role,
                    "job_description": description,
                    "max_queries": queries,
                    "max_result_chars": result_chars,
                },
            )
        except DeepResearchError as exc:
            fail(exc)
    settings = settings_from(given)
    run_id = resume or run_id or new_run_id()
    renderer = Renderer(json_events=json_events)
    try:
        resources = recipe.resources(files)
        if not resume:
            save_run_record(
                settings,
                run_id,
                company or "",
                {k: str(v) if isinstance(v, Path) else v for k, v in given.items()},
                recipe=recipe.name,
                files={name: str(path.resolve()) for name, path in files.items()},
            )
        with renderer:
            result = asyncio.run(
                run_recipe(
                    recipe,
                    request,
                    settings,
                    run_id=run_id,
                    resume=bool(resume),
                    sinks=[renderer],
                    resources=resources,
                )
            )
    except DeepResearchError as exc:
        fail(exc)
    except KeyboardInterrupt:
        typer.echo(err=True)
        say(f"interrupted; resume with: deepresearch employer --resume {run_id}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if result is None:
        say(f"paused; resume with: deepresearch employer --resume {run_id}")
        raise typer.Exit(EXIT_OK)
    completion = recipe.completion(result, fetches=0)
    write_output(
        target,
        render_bytes(recipe, result, fmt.value, pdf_fonts=settings.pdf_fonts),
        saved=f"the run is saved: deepresearch report {run_id} --out FILE",
    )
    say(f"{completion.headline} written to {shown(target)} (run {run_id})")
    for note in completion.notes:
        say(note)
    raise typer.Exit(EXIT_OK if completion.complete else EXIT_ABORT)
