"""``deepresearch ask RUN_ID "..."``: a follow-up question on a finished research run.

The follow-up is a run of its own (a new turn of the run's thread): it reuses the
thread's pages and verified evidence, researches what is new and writes a report citing
both, or starts afresh when the question is on another topic. It runs with the options
the followed run was started with (its run record), unless given again now."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import (
    EXIT_ABORT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_WAITING,
    STDOUT,
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
from deepresearch.cli.run import Format, _check_target, _remember
from deepresearch.core.ids import new_run_id
from deepresearch.errors import DeepResearchError


def ask(
    run_id: Annotated[str, typer.Argument(help="The finished research run to follow up.")],
    question: Annotated[str, typer.Argument(help="The follow-up question.")],
    model: options.Model = None,
    model_base_url: options.ModelBaseUrl = None,
    search: options.Search = None,
    searxng_url: options.SearxngUrl = None,
    corpus: options.Corpus = None,
    allow_host: options.AllowHost = None,
    fmt: Annotated[
        Format | None, typer.Option("--format", help="Report format (default md).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Where to write the report (default report.<format>; - for stdout)."),
    ] = None,
    json_events: options.JsonEvents = False,
    new_id: Annotated[
        str | None,
        typer.Option("--run-id", help="Id for the follow-up's run (default: generated)."),
    ] = None,
    config: options.Config = None,
) -> None:
    """Ask a follow-up QUESTION on finished research run RUN_ID and write its report."""
    import asyncio

    from deepresearch.cli.live import Renderer
    from deepresearch.cli.pause import show_waiting
    from deepresearch.export.report_render import render
    from deepresearch.llm.redact import redact
    from deepresearch.models.pause import InputRequest
    from deepresearch.recipes.registry import get_recipe
    from deepresearch.records import now
    from deepresearch.runner import load_run_record, run_recipe, save_run_record
    from deepresearch.threads import load_parent

    use_config_file(config)
    parent = run_id_or_exit(run_id, "RUN_ID")
    question = question_or_exit(question)
    if new_id is not None:
        new_id = run_id_or_exit(new_id, "--run-id")
    fmt = fmt or Format.md
    target = _check_target(out, fmt, json_events)
    given: dict[str, Any] = {
        key: value
        for key, value in options.model_and_search_overrides(
            model=model,
            model_base_url=model_base_url,
            search=search,
            searxng_url=searxng_url,
            corpus=corpus,
            allow_host=allow_host,
        ).items()
        if value is not None
    }
    record = load_run_record(settings_from({}), parent) or {}
    remembered = record.get("options")
    if isinstance(remembered, dict):  # the thread goes on as it was started
        given = {**remembered, **given}
    settings = settings_from(given)
    if new_id is not None and load_run_record(settings, new_id) is not None:
        error(f"a run with id {new_id!r} already exists", "choose another --run-id")
    try:  # a clear error before anything is started or recorded
        asyncio.run(load_parent(settings, parent))
    except DeepResearchError as exc:
        fail(exc)
    followup = new_id or new_run_id()
    save_run_record(
        settings,
        followup,
        question,
        {k: str(v) if isinstance(v, Path) else v for k, v in given.items()},
    )
    remember = partial(_remember, settings, followup)
    remember(
        out=str(target) if target == STDOUT else str(target.absolute()),
        format=fmt.value,
        status="running",
        pid=os.getpid(),
    )

    async def go() -> Any:
        recipe = get_recipe("research")
        request = recipe.request(question, {"followup_of": parent})
        return await run_recipe(recipe, request, settings, run_id=followup, sinks=[renderer])

    renderer = Renderer(json_events=json_events)
    try:
        with renderer:
            report = asyncio.run(go())
    except DeepResearchError as exc:
        remember(status="failed", error=redact(exc.message, settings.secrets()), finished=now())
        fail(exc)
    except KeyboardInterrupt:
        remember(status="interrupted", finished=now())
        typer.echo(err=True)
        say(f"interrupted; resume with: deepresearch run --resume {followup}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if isinstance(report, InputRequest):  # the thread reviews plans (--review-plan)
        remember(status="awaiting_input")
        show_waiting(report)  # `deepresearch reply` continues it and writes the report
        raise typer.Exit(EXIT_WAITING)
    remember(status="complete", kind=report.kind, finished=now(), error=None)
    write_output(
        target,
        render(report, fmt.value),
        saved=f"the run is saved: deepresearch report {followup} --out FILE",
    )
    info = report.followup
    if info is not None:
        say(
            f"turn {info.turn} of thread {info.root}: "
            + (
                "a new topic, researched afresh"
                if info.topic_shift
                else f"reused {info.reused_sources} page(s), {info.reused_evidence} quote(s)"
            )
        )
    say(f"{report.kind} report written to {shown(target)} (run {followup})")
    raise typer.Exit(EXIT_ABORT if report.kind == "abort" else EXIT_OK)
