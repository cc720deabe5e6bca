"""``deepresearch replay RUN_ID`` (or ``--from DIR``): reproduce a finished run's report
offline from its recording, with no model call, search or fetch; ``deepresearch record
RUN_ID DIR``: copy a run's recording to a folder that replays on another machine."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli import common, options
from deepresearch.cli.choices import Format
from deepresearch.errors import DeepResearchError


def replay(
    run_id: Annotated[
        str | None, typer.Argument(help="The id of a finished, recorded run.")
    ] = None,
    source: Annotated[
        Path | None,
        typer.Option("--from", help="Replay the recording in this folder (from `record`)."),
    ] = None,
    fmt: options.ReportFormat = Format.md,
    out: options.OutFile = None,
) -> None:
    """Reproduce a finished run's report from its recording, offline and byte for byte."""
    import asyncio

    from deepresearch.compose.replay import replay_run
    from deepresearch.export.formats import render_bytes

    if (run_id is None) == (source is None):
        common.error("give a RUN_ID or --from DIR (one of them)", "deepresearch replay RUN_ID")
    if run_id is not None:
        run_id = common.run_id_or_exit(run_id)
    target = common.check_output(out, fmt.value)
    settings = common.settings_from({})
    try:
        recipe, document = asyncio.run(replay_run(settings, run_id, folder=source))
    except DeepResearchError as exc:
        common.fail(exc)
    common.write_output(
        target, render_bytes(recipe, document, fmt.value, pdf_fonts=settings.pdf_fonts)
    )
    common.say(
        f"replayed run {document.run_id}: the recorded report, written to {common.shown(target)}"
    )


def record(
    run_id: Annotated[str, typer.Argument(help="The id of a recorded run.")],
    folder: Annotated[Path, typer.Argument(help="A new or empty folder to copy it to.")],
) -> None:
    """Copy a run's recording (model replies, search results, pages; keys scrubbed) to a
    folder that `deepresearch replay --from` replays anywhere."""
    from deepresearch.compose.replay import export_recording

    run_id = common.run_id_or_exit(run_id)
    settings = common.settings_from({})
    try:
        export_recording(settings, run_id, folder)
    except DeepResearchError as exc:
        common.fail(exc)
    except OSError as exc:
        common.error(f"could not write {folder} ({exc.strerror or exc})", "choose another folder")
    common.say(
        f"run {run_id} recorded in {folder}; replay it with: deepresearch replay --from {folder}"
    )
