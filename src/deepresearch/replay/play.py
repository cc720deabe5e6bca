"""Replaying a recorded run, and copying a recording to a folder of its own.

``replay_run`` loads a recording (a run's own in ``data_dir/recordings``, or a folder from
``deepresearch record``), runs the same recipe on the same request with the same settings in
a throwaway data folder (so nothing it stores mixes with real runs), on ports that answer
only from the recording, and checks the document it gets is the recorded one. A recording
that cannot give an exact replay (none, unfinished, a question it has no answer for, a
different document) is an error saying so, never a guess."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepresearch.errors import DeepResearchError, InvalidInput, RunError, RunNotFound
from deepresearch.events import Sink
from deepresearch.llm.redact import redact
from deepresearch.recipes.base import Recipe
from deepresearch.recipes.registry import get_recipe
from deepresearch.replay.ports import Player
from deepresearch.replay.tape import MANIFEST, Tape, document_digest, recording_folder
from deepresearch.settings import Settings


def open_recording(settings: Settings, run_id: str | None, folder: Path | None) -> Tape:
    """The recording of run ``run_id`` in ``settings.data_dir``, or the one in ``folder``;
    RunNotFound when there is none."""
    if folder is None:
        assert run_id is not None
        tape = Tape(recording_folder(settings, run_id))
        if not tape.exists():
            raise RunNotFound(
                f"run {run_id!r} has no recording in {settings.data_dir / 'recordings'}",
                hint="only runs made with record_runs on (the default since replay exists) "
                "can be replayed; run the question again to record it",
            )
        return tape
    tape = Tape(folder)
    if not tape.exists():
        raise RunNotFound(
            f"{folder} holds no {MANIFEST}", hint="pass a folder written by `deepresearch record`"
        )
    return tape


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
            {**manifest["settings"], "data_dir": Path(scratch), "record_runs": False}
        )
        try:
            document = await run_recipe(
                recipe,
                request,
                replay_settings,
                run_id=str(manifest["run_id"]),
                sinks=sinks,
                models=player.models(),  # type: ignore[arg-type]
                search=player.search_provider(),
                fetcher=player.fetcher(),
                tape=player,
            )
        except DeepResearchError:
            if player.misses:
                raise _missing(player) from None
            raise
    if player.misses:
        raise _missing(player)
    if document is None or document_digest(document) != manifest["result_sha256"]:
        raise RunError(
            f"the replay of run {manifest.get('run_id')!r} gave a different report than "
            "the recorded run",
            hint="the recording was made by another version ("
            + ", ".join(f"{k} {v}" for k, v in manifest.get("versions", {}).items())
            + "); replay it with that version",
        )
    return recipe, document


#: settings under which the same replies can give another report: which model calls a
#: budget lets start depends on how fast the calls before it came back
TIMING_SETTINGS = ("max_tokens", "max_cost", "max_time")


def refuse_inexact(manifest: dict[str, Any]) -> None:
    """Refuse, before any work, a recorded run whose replay cannot be exact."""
    run = manifest.get("run_id")
    budgets = [name for name in TIMING_SETTINGS if manifest["settings"].get(name) is not None]
    if budgets:
        raise RunError(
            f"run {run!r} ran under a budget ({', '.join(budgets)}): which model calls a "
            "budget lets start depends on how fast earlier calls came back, so its replay "
            "cannot be exact",
            hint="`deepresearch report RUN_ID` shows its report; replay runs made without a budget",
        )
    if manifest.get("waited_for_input"):
        raise RunError(
            f"run {run!r} waited for a person's answer (a clarifying question or a plan "
            "review), which its recording does not hold, so its replay cannot be exact",
            hint="`deepresearch report RUN_ID` shows its report; replay runs that did not "
            "stop to ask",
        )
    parent = manifest.get("request", {}).get("followup_of")
    if parent:
        raise RunError(
            f"run {run!r} follows up run {parent!r}, which a replay cannot read",
            hint="`deepresearch report RUN_ID` shows its report; replaying follow-ups is "
            "not supported yet",
        )


def _missing(player: Player) -> RunError:
    first = player.misses[0]
    more = f" (and {len(player.misses) - 1} more)" if len(player.misses) > 1 else ""
    return RunError(
        f"this run's recording has no {first}{more}: it cannot be replayed exactly",
        hint="the recording is incomplete (a run recorded in part, or a failed call); "
        "run the question again to record it whole",
    )


def export_recording(settings: Settings, run_id: str, target: Path) -> Path:
    """Copy run ``run_id``'s recording to ``target`` (a new or empty folder), its manifest
    also passed through ``redact`` (credential-shaped strings too, not only the configured
    secrets the recording already left out)."""
    tape = open_recording(settings, run_id, None)
    if target.exists() and any(target.iterdir()):
        raise InvalidInput(f"{target} is not empty", hint="choose a new folder")
    shutil.copytree(tape.folder, target, dirs_exist_ok=True)
    manifest = target / MANIFEST
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(redact(text, settings.secrets()), encoding="utf-8")
    return target
