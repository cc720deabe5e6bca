"""Replaying a recorded run with the recorded settings, and exporting a recording: the
composition side of ``replay.play`` (which holds what a replay checks and answers).

``replay_run`` builds the recorded ``Settings`` in a throwaway data folder and runs the
recorded recipe on the recording's own ports (``replay.ports.Player``), resumed at each
pause with the recorded answer, then compares the document's digest."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepresearch.errors import DeepResearchError, RunError
from deepresearch.events import Sink
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.base import Recipe
from deepresearch.recipes.registry import get_recipe
from deepresearch.replay.play import (
    copy_recording,
    missing,
    open_recording,
    recorded_answer,
    refuse_inexact,
)
from deepresearch.replay.ports import Player
from deepresearch.replay.tape import document_digest
from deepresearch.settings import Settings


async def replay_run(
    settings: Settings,
    run_id: str | None = None,
    *,
    folder: Path | None = None,
    sinks: Sequence[Sink] = (),
) -> tuple[Recipe[Any, Any], Any]:
    """Replay a recorded run; its recipe and document, equal to the recorded one.
    ``settings`` only says where to find the run (``data_dir``); the replay uses the
    recorded settings."""
    from deepresearch.runner import run_recipe

    player = Player(open_recording(settings, run_id, folder))
    manifest = player.manifest
    if not manifest.get("finished") or not manifest.get("result_sha256"):
        raise RunError(
            f"run {manifest.get('run_id')!r} did not finish while it was recorded: "
            "there is no report to reproduce",
            hint="resume it first (deepresearch run --resume RUN_ID), then replay it",
        )
    refuse_inexact(manifest)
    recipe: Recipe[Any, Any] = get_recipe(str(manifest.get("recipe")))
    request = recipe.request_model.model_validate(manifest["request"])
    with tempfile.TemporaryDirectory(prefix="deepresearch-replay-") as scratch:
        replay_settings = Settings.model_validate(
            # a recording from before the pre-search (issue 26) ran without one
            {
                "presearch": False,
                **manifest["settings"],
                "data_dir": Path(scratch),
                "record_runs": False,
            }
        )
        answers = iter(player.answers)
        try:
            document = await run_recipe(
                recipe,
                request,
                replay_settings,
                run_id=str(manifest["run_id"]),
                sinks=sinks,
                models=player.models(),  # type: ignore[arg-type]
                search=player.search_provider(),
                fetcher=player.replay_fetcher(),
                tape=player,
            )
            # each pause resumed as the person did: a new part of the run, with the
            # answer it got (the recorded run's parts ran the same way)
            while isinstance(document, InputRequest):
                document = await run_recipe(
                    recipe,
                    None,
                    replay_settings,
                    run_id=str(manifest["run_id"]),
                    resume=True,
                    reply=recorded_answer(player, document, next(answers, None)),
                    sinks=sinks,
                    models=player.models(),  # type: ignore[arg-type]
                    search=player.search_provider(),
                    fetcher=player.replay_fetcher(),
                    tape=player,
                )
        except DeepResearchError:
            if player.misses:
                raise missing(player) from None
            raise
    if player.misses:
        raise missing(player)
    if document is None or document_digest(document) != manifest["result_sha256"]:
        raise RunError(
            f"the replay of run {manifest.get('run_id')!r} gave a different report than "
            "the recorded run",
            hint="the recording was made by another version ("
            + ", ".join(f"{k} {v}" for k, v in manifest.get("versions", {}).items())
            + "); replay it with that version",
        )
    return recipe, document


def export_recording(settings: Settings, run_id: str, target: Path) -> Path:
    """Copy run ``run_id``'s recording to ``target`` (a new or empty folder), its manifest
    also passed through ``redact`` (credential-shaped strings too, not only the configured
    secrets the recording already left out)."""
    return copy_recording(open_recording(settings, run_id, None), target, settings.secrets())
