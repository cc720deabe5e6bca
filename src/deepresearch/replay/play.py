"""What a replay checks and answers, and copying a recording to a folder of its own
(``compose.replay`` runs the replay with the recorded settings).

``compose.replay.replay_run`` loads a recording (a run's own in ``data_dir/recordings``, or a folder from
``deepresearch record``), runs the same recipe on the same request with the same settings in
a throwaway data folder (so nothing it stores mixes with real runs), on ports that answer
only from the recording, and checks the document it gets is the recorded one. A run that
paused for a person is resumed at each pause with the answer it got (in order, from the
recording), and a follow-up reads its parent from the recording (``replay.answers``). A
recording that cannot give an exact replay (none, unfinished, one made by an earlier version
without what the run needed, a question it has no answer for, a different document) is an
error saying so, never a guess. A run under a budget replays like any other: the recording
holds its budget's decisions, which the replay's budget guard follows."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepresearch.errors import InvalidInput, RunError, RunNotFound
from deepresearch.llm.redact import redact
from deepresearch.models.pause import InputRequest
from deepresearch.replay.ports import Player
from deepresearch.replay.tape import MANIFEST, Tape, recording_folder
from deepresearch.settings_groups import Storage


def open_recording(settings: Storage, run_id: str | None, folder: Path | None) -> Tape:
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


def recorded_answer(player: Player, request: InputRequest, entry: dict[str, Any] | None) -> Any:
    """The recorded answer to the pause the replay reached; a miss when the recording
    holds none for it (fewer answers, or one to another kind of question)."""
    if entry is None or entry.get("kind") != request.kind:
        what = {
            "clarification": "clarifying question",
            "findings": "findings to review",
            "report": "report to review",
        }.get(request.kind, "plan to review")
        player.miss(f"answer to the {what} the run asked")
        raise missing(player)
    return entry["answer"]


#: the settings that put a run under a budget: its replay needs the recorded decisions
BUDGET_SETTINGS = ("max_tokens", "max_cost", "max_time")


def refuse_inexact(manifest: dict[str, Any]) -> None:
    """Refuse, before any work, a recorded run whose replay cannot be exact: one that
    needed what its recording (made by an earlier version) does not hold: a budget's
    decisions, a person's answers, a follow-up's parent; or one with a research unit cut
    at its time limit (``Recorder.cut``)."""
    run = manifest.get("run_id")
    report = f"`deepresearch report {run}` shows its report"
    holds = manifest.get("holds", [])
    settings = manifest.get("settings", {})
    budgets = [name for name in BUDGET_SETTINGS if settings.get(name) is not None]
    if budgets and "budget" not in holds:
        raise RunError(
            f"run {run!r} ran under a budget ({', '.join(budgets)}) and its recording, made "
            "by an earlier version, does not hold which model calls the budget let start, "
            "so its replay cannot be exact",
            hint=f"{report}; runs recorded under a budget since this version replay",
        )
    if manifest.get("waited_for_input") and "answers" not in holds:
        raise RunError(
            f"run {run!r} waited for a person's answer (a clarifying question or a plan "
            "review), which its recording does not hold, so its replay cannot be exact",
            hint=f"{report}; recordings made since this version keep the answers and replay",
        )
    cut = manifest.get("cut", [])
    if cut:
        raise RunError(
            f"run {run!r} had {cut[0]} cut at its time limit (unit_timeout_s); what it had "
            "done by then depends on the machine's speed, so its replay cannot be exact",
            hint=f"{report}; a run with no unit cut at its time limit replays",
        )
    parent = manifest.get("request", {}).get("followup_of")
    if parent and "parents" not in holds:
        raise RunError(
            f"run {run!r} follows up run {parent!r}, and its recording does not hold what "
            f"it read of {parent!r}, so its replay cannot be exact",
            hint=f"{report}; follow-ups recorded since this version hold it and replay",
        )


def missing(player: Player) -> RunError:
    first = player.misses[0]
    more = f" (and {len(player.misses) - 1} more)" if len(player.misses) > 1 else ""
    return RunError(
        f"this run's recording has no {first}{more}: it cannot be replayed exactly",
        hint="the recording is incomplete (a run recorded in part, or a failed call); "
        "run the question again to record it whole",
    )


def copy_recording(tape: Tape, target: Path, secrets: Sequence[str]) -> Path:
    """Copy ``tape``'s recording to ``target`` (a new or empty folder), its manifest also
    passed through ``redact`` (credential-shaped strings too, not only the configured
    ``secrets`` the recording already left out)."""
    if target.exists() and any(target.iterdir()):
        raise InvalidInput(f"{target} is not empty", hint="choose a new folder")
    shutil.copytree(tape.folder, target, dirs_exist_ok=True)
    manifest = target / MANIFEST
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(redact(text, secrets), encoding="utf-8")
    return target
