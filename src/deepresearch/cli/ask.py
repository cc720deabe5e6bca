"""``deepresearch ask RUN_ID "..."``: a follow-up question on a finished research run.

The follow-up is a run of its own (a new turn of the run's thread): it reuses the
thread's pages and verified evidence, researches what is new and writes a report citing
both, or starts afresh when the question is on another topic. It runs with the options
the followed run was started with (its run record), unless given again now."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from deepresearch.cli import common, options, running
from deepresearch.cli.choices import Format
from deepresearch.core.ids import new_run_id
from deepresearch.errors import DeepResearchError

if TYPE_CHECKING:
    from deepresearch.models.report import Report
    from deepresearch.settings import Settings


@options.with_backends(roles=False)
def ask(
    run_id: Annotated[str, typer.Argument(help="The finished research run to follow up.")],
    question: Annotated[str, typer.Argument(help="The follow-up question.")],
    backends: options.Backends = options.NOT_GIVEN,
    allow_host: options.AllowHost = None,
    fmt: Annotated[
        Format | None, typer.Option("--format", help="Report format (default md).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Where to write the report (default report.<format>; - for stdout)."),
    ] = None,
    json_events: options.JsonEvents = False,
    review_report: options.ReviewReport = False,
    no_library: options.NoLibrary = False,
    new_id: Annotated[
        str | None,
        typer.Option("--run-id", help="Id for the follow-up's run (default: generated)."),
    ] = None,
    config: options.Config = None,
) -> None:
    """Ask a follow-up QUESTION on finished research run RUN_ID and write its report."""
    common.use_config_file(config)
    parent = common.run_id_or_exit(run_id, "RUN_ID")
    question = common.question_or_exit(question)
    if new_id is not None:
        new_id = common.run_id_or_exit(new_id, "--run-id")
    fmt = fmt or Format.md
    target = running.check_target(out, fmt, json_events)
    overrides = {
        **backends.overrides(allow_host),
        "review_report": review_report or None,
        "use_library": False if no_library else None,
    }
    given = _given(parent, options.given(overrides))
    settings = common.settings_from(given)
    if new_id is not None and _load_record(settings, new_id) is not None:
        common.error(f"a run with id {new_id!r} already exists", "choose another --run-id")
    _check_parent(settings, parent)
    followup = new_id or new_run_id()
    remember = _start(settings, followup, question, given)
    running.note_started(remember, target, fmt)
    report = _follow_up(settings, parent, followup, question, json_events, remember)
    _finish(report, followup, target, fmt, remember, settings)


def _load_record(settings: Settings, run_id: str) -> dict[str, Any] | None:
    from deepresearch.runner import load_run_record

    return load_run_record(settings, run_id)


def _given(parent: str, given: dict[str, Any]) -> dict[str, Any]:
    """The follow-up's options: those the thread was started with (the followed run's
    record), under those given now."""
    record = _load_record(common.settings_from({}), parent) or {}
    return running.remembered_options(record, given)  # the thread goes on as it was started


def _check_parent(settings: Settings, parent: str) -> None:
    """A clear error before anything is started or recorded: the followed run must be
    a finished research run."""
    import asyncio

    from deepresearch.recipes.registry import followups

    try:
        asyncio.run(followups().check_parent(settings, parent))
    except DeepResearchError as exc:
        common.fail(exc)


def _start(
    settings: Settings, followup: str, question: str, given: dict[str, Any]
) -> running.Remember:
    """Write the follow-up's run record; its notes go there."""
    from deepresearch.runner import save_run_record

    save_run_record(settings, followup, question, options.storable(given))
    return running.recorder(settings, followup, kept=True)


def _follow_up(
    settings: Settings,
    parent: str,
    followup: str,
    question: str,
    json_events: bool,
    remember: running.Remember,
) -> Any:
    """Run the follow-up (a research run following ``parent``) with the live view."""
    from deepresearch.recipes.registry import get_recipe
    from deepresearch.runner import run_recipe

    async def go(sinks: list[Any]) -> Any:
        recipe = get_recipe("research")
        request = recipe.request(question, {"followup_of": parent})
        return await run_recipe(recipe, request, settings, run_id=followup, sinks=sinks)

    try:
        return running.live(json_events, go)
    except DeepResearchError as exc:
        running.failed(remember, settings, exc)
    except KeyboardInterrupt:
        running.interrupted(remember, f"deepresearch run --resume {followup}")


def _finish(
    report: Any,
    followup: str,
    target: Path,
    fmt: Format,
    remember: running.Remember,
    settings: Settings,
) -> NoReturn:
    """Write the follow-up's report and say what it reused (a review pause: how to
    answer it), then exit with the report's code."""
    from deepresearch.cli.pause import show_waiting
    from deepresearch.export.formats import render_bytes
    from deepresearch.models.pause import InputRequest
    from deepresearch.recipes.registry import DEFAULT_RECIPE, get_recipe
    from deepresearch.records import now

    if isinstance(report, InputRequest):  # the thread reviews plans (--review-plan)
        remember(status="awaiting_input")
        show_waiting(report)  # `deepresearch reply` continues it and writes the report
        raise typer.Exit(common.EXIT_WAITING)
    remember(status="complete", kind=report.kind, finished=now(), error=None)
    recipe = get_recipe(DEFAULT_RECIPE)
    data = render_bytes(recipe, report, fmt.value, pdf_fonts=settings.pdf_fonts)
    running.write_report(target, data, followup)
    _say_reused(report)
    running.written(f"{report.kind} report", target, followup)
    raise typer.Exit(common.EXIT_ABORT if report.kind == "abort" else common.EXIT_OK)


def _say_reused(report: Report) -> None:
    """Which turn of which thread this is, and what it reused from the thread."""
    info = report.followup
    if info is not None:
        common.say(
            f"turn {info.turn} of thread {info.root}: "
            + (
                "a new topic, researched afresh"
                if info.topic_shift
                else f"reused {info.reused_sources} page(s), {info.reused_evidence} quote(s)"
            )
        )
