"""``deepresearch employer``: research an employer and write its profile (seed 000's
recipe), with the same model, search and output options as ``deepresearch run``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from deepresearch.cli import options
from deepresearch.cli.choices import Format
from deepresearch.cli.common import (
    EXIT_ABORT,
    EXIT_OK,
    error,
    fail,
    run_id_or_exit,
    say,
    settings_from,
    use_config_file,
)
from deepresearch.cli.running import (
    check_target,
    forget,
    interrupted,
    live,
    remembered_options,
    write_report,
    written,
)
from deepresearch.core.ids import new_run_id
from deepresearch.errors import DeepResearchError

if TYPE_CHECKING:
    from deepresearch.recipes.base import Recipe
    from deepresearch.settings import Settings

RECIPE = "employer"

# The recipe's options model (``EmployerOptions`` in recipes/employer/models.py) owns
# these defaults and bounds; the CLI cannot import it for --help (it loads pydantic and
# the recipe), so tests/recipes/test_cli.py checks these copies against it.
#: searches per attempt: default, lowest, highest
QUERIES = (2, 1, 4)
#: characters kept per search: default, lowest, highest
RESULT_CHARS = (1500, 200, 8000)

Company = Annotated[
    str | None, typer.Argument(help="The employer's name (optional with --job-description).")
]
Role = Annotated[str | None, typer.Option(help="The job title to research for.")]
JobDescription = Annotated[
    Path | None, typer.Option(help="A text file with the job posting.", metavar="FILE")
]
Queries = Annotated[
    int,
    typer.Option(
        min=QUERIES[1], max=QUERIES[2], help=f"Searches per attempt (seed 000: {QUERIES[0]})."
    ),
]
ResultChars = Annotated[
    int,
    typer.Option(
        min=RESULT_CHARS[1],
        max=RESULT_CHARS[2],
        help=f"Characters kept per search (seed 000: {RESULT_CHARS[0]}).",
    ),
]
Lists = Annotated[
    Path | None,
    typer.Option(help="A TOML file extending the pruning lists and industries.", metavar="FILE"),
]
ProfileFormat = Annotated[Format, typer.Option("--format", help="Profile format.")]
ProfileOut = Annotated[
    Path | None,
    typer.Option(
        help="Where to write the profile (default employer-profile.<format>; - for stdout)."
    ),
]
RunId = Annotated[str | None, typer.Option(help="Id for the run (default: generated).")]
Resume = Annotated[
    str | None, typer.Option(help="Resume the employer run with this id.", metavar="RUN_ID")
]


@options.with_backends(roles=True)
def employer(
    company: Company = None,
    role: Role = None,
    job_description: JobDescription = None,
    queries: Queries = QUERIES[0],
    result_chars: ResultChars = RESULT_CHARS[0],
    lists: Lists = None,
    backends: options.Backends = options.NOT_GIVEN,
    fmt: ProfileFormat = Format.md,
    out: ProfileOut = None,
    json_events: options.JsonEvents = False,
    run_id: RunId = None,
    resume: Resume = None,
    allow_host: options.AllowHost = None,
    config: options.Config = None,
) -> None:
    """Research an employer: a traced profile behind a data-quality firewall."""
    # the recipe, pydantic and the live view load here, not for --help (issue 19)
    from deepresearch.recipes.registry import get_recipe

    use_config_file(config)
    recipe = get_recipe(RECIPE)
    if run_id and resume:
        error("--run-id names a new run; use --resume alone to continue one")
    if run_id is not None:
        run_id = run_id_or_exit(run_id, "--run-id")
    if resume is not None:
        resume = run_id_or_exit(resume, "--resume")
    target = check_target(out, fmt, json_events, default="employer-profile", noun="profile")
    given = options.given(backends.overrides(allow_host))
    files: dict[str, Path] = {"lists": lists} if lists is not None else {}
    request = None
    if resume:
        given, files = _remembered(resume, given, files)
    else:
        request = _request(recipe, company, role, job_description, queries, result_chars)
    settings = settings_from(given)
    run_id = resume or run_id or new_run_id()
    start = _Start(recipe, request, settings, run_id, bool(resume), files)
    result = _run(start, company, given, json_events)
    _finish(recipe, result, settings, run_id, target, fmt)


def _remembered(
    resume: str, given: dict[str, Any], files: dict[str, Path]
) -> tuple[dict[str, Any], dict[str, Path]]:
    """A resumed run's options and files (its record), unless given again now."""
    from deepresearch.runner import load_run_record

    record = load_run_record(settings_from({}), resume) or {}
    given = remembered_options(record, given)
    kept = record.get("files")
    if isinstance(kept, dict) and not files:
        files = {name: Path(str(path)) for name, path in kept.items()}
    return given, files


def _request(
    recipe: Recipe[Any, Any],
    company: str | None,
    role: str | None,
    job_description: Path | None,
    queries: int,
    result_chars: int,
) -> Any:
    """The recipe's request from the flags (exit 2 if the recipe refuses them)."""
    description = None
    if job_description is not None:
        try:
            description = job_description.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            error(f"cannot read {job_description}: {exc}")
    try:
        return recipe.request(
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


@dataclass(frozen=True)
class _Start:
    """What starting (or resuming) the employer run takes."""

    recipe: Recipe[Any, Any]
    request: Any
    settings: Settings
    run_id: str
    resume: bool
    files: dict[str, Path]


def _run(start: _Start, company: str | None, given: dict[str, Any], json_events: bool) -> Any:
    """Record a new run, then run (or resume) it with the live view; its result, or
    None when it stopped early."""
    from deepresearch.runner import run_recipe, save_run_record

    recipe, settings, run_id = start.recipe, start.settings, start.run_id
    try:
        resources = recipe.resources(start.files)
        if not start.resume:
            save_run_record(
                settings,
                run_id,
                company or "",
                options.storable(given),
                recipe=recipe.name,
                files={name: str(path.resolve()) for name, path in start.files.items()},
            )
        return live(
            json_events,
            lambda sinks: run_recipe(
                recipe,
                start.request,
                settings,
                run_id=run_id,
                resume=start.resume,
                sinks=sinks,
                resources=resources,
            ),
        )
    except DeepResearchError as exc:
        fail(exc)
    except KeyboardInterrupt:
        interrupted(forget, f"deepresearch employer --resume {run_id}")


def _finish(
    recipe: Recipe[Any, Any],
    result: Any,
    settings: Settings,
    run_id: str,
    target: Path,
    fmt: Format,
) -> NoReturn:
    """Write the profile and say how complete it is (exit 3 if not); a stopped run says
    how to resume."""
    from deepresearch.export.formats import render_bytes

    if result is None:
        say(f"paused; resume with: deepresearch employer --resume {run_id}")
        raise typer.Exit(EXIT_OK)
    completion = recipe.completion(result, fetches=0)
    write_report(
        target, render_bytes(recipe, result, fmt.value, pdf_fonts=settings.pdf_fonts), run_id
    )
    written(completion.headline, target, run_id)
    for note in completion.notes:
        say(note)
    raise typer.Exit(EXIT_OK if completion.complete else EXIT_ABORT)
