"""Run records: ``data_dir/runs/<id>.json``, written by ``deepresearch run``, remember what a
run was started with (never secrets: the options given, the corpus as an absolute path,
where the report goes and in which format) and how it ended. ``--resume`` reads them, so a
resume needs no flags and works from any folder; ``deepresearch runs list`` shows them,
with the state of each run's checkpoint.

A record is rewritten whole through a temporary file, so a reader never sees half of one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from deepresearch.core.ids import check_run_id
from deepresearch.errors import InvalidInput, RunError
from deepresearch.runstatus import CheckpointState, Status, run_status

if TYPE_CHECKING:
    from deepresearch.models.pause import InputRequest
    from deepresearch.settings_groups import Storage

#: the recorded status of a run whose pause was cancelled (``cancel_waiting``)
CANCELLED = "cancelled"


def update_run_record(settings: Storage, run_id: str, **fields: object) -> None:
    """Merge ``fields`` into the run's record (created when missing)."""
    from deepresearch.runner import update_run_record as update

    update(settings, run_id, **fields)


def now() -> str:
    return datetime.now(UTC).isoformat()


async def waiting_input(settings: Storage, run_id: str) -> InputRequest | None:
    """What local run ``run_id`` waits for (its checkpoint's pending question, plan or
    findings), or None: it waits for nothing, or its pause was cancelled. Raises
    ``RunNotFound`` when there is no such run."""
    from deepresearch.runner import load_run_record, pending_input

    waiting = await pending_input(settings, run_id)
    record = load_run_record(settings, run_id) or {}
    return None if record.get("status") == CANCELLED else waiting


def cancel_waiting(settings: Storage, run_id: str) -> None:
    """End local run ``run_id``, which waits for a person, as cancelled: the one way the
    CLI (``reply --cancel``, the prompt's cancel) and the MCP stdio server's ``reply``
    cancel a pause, as the service's cancel ends a waiting job. Only the run's record
    changes (``status`` cancelled, ``finished``): its checkpoint, the question, plan or
    findings it asked about and all it gathered stay stored (``deepresearch report`` and
    ``runs list`` say it was cancelled; ``run --resume`` would ask again). The caller has
    checked that it waits (``waiting_input``)."""
    try:
        update_run_record(settings, run_id, status=CANCELLED, finished=now())
    except OSError as exc:
        raise RunError(
            f"could not record the cancel of run {run_id} ({exc.strerror or exc})",
            hint="check that the data folder can be written; the run still waits",
        ) from None


def list_run_records(settings: Storage) -> list[dict[str, Any]]:
    """Every readable record in the data folder, newest first. A file that is not a
    record (not JSON, no valid run id) is skipped."""
    folder = settings.data_dir / "runs"
    records = []
    for path in folder.glob("*.json") if folder.is_dir() else ():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or check_run_id(str(data.get("run_id"))) != path.stem:
                continue
        except (OSError, ValueError, InvalidInput):
            continue
        records.append(data)
    records.sort(key=lambda data: str(data.get("started", "")), reverse=True)
    return records


async def checkpoint_states(
    settings: Storage, run_ids: Iterable[str]
) -> dict[str, CheckpointState]:
    """For each run, what its checkpoint says (None: no checkpoint; ``waiting``: a pause
    waits for a person's answer). Opens the checkpoint store once; with no SQLite store
    yet, every run has none."""
    ids = list(run_ids)
    from deepresearch.checkpoints import is_postgres, open_checkpointer, sqlite_checkpoint_path

    if not ids or (
        not is_postgres(settings.database_url) and not sqlite_checkpoint_path(settings).is_file()
    ):
        return dict.fromkeys(ids)
    from deepresearch.recipes.registry import DEFAULT_RECIPE, checkpoint_types, get_recipe
    from deepresearch.runner import waiting_request

    states: dict[str, CheckpointState] = {}
    async with open_checkpointer(settings, checkpoint_types()) as saver:
        reader = get_recipe(DEFAULT_RECIPE).build_graph(saver)  # reads any recipe's state
        for run_id in ids:
            config: Any = {"configurable": {"thread_id": run_id}}
            snapshot = await reader.aget_state(config)
            if not snapshot.values:
                states[run_id] = None
                continue
            recipe = get_recipe(snapshot.values.get("recipe") or DEFAULT_RECIPE)
            snapshot = await recipe.build_graph(saver).aget_state(config)
            done = not snapshot.next and recipe.result(snapshot.values) is not None
            waits = waiting_request(run_id, snapshot.interrupts) is not None
            states[run_id] = "complete" if done else "waiting" if waits else "pending"
    return states


async def run_row(settings: Storage, run_id: str) -> RunRow | None:
    """What ``runs list`` says of one run (None: it has no record), for the commands that
    say how a run stands (``report`` of an unfinished run)."""
    from deepresearch.runner import load_run_record

    record = load_run_record(settings, run_id)
    if record is None:
        return None
    states = await checkpoint_states(settings, [run_id])
    return run_rows([record], states)[0]


@dataclass(frozen=True)
class RunRow:
    """One line of ``runs list``."""

    run_id: str
    started: str
    question: str
    status: Status
    kind: str | None
    out: str | None
    error: str | None

    def as_json(self) -> dict[str, object]:
        return {
            "run_id": self.run_id,
            "started": self.started,
            "question": self.question,
            "status": self.status,
            "kind": self.kind,
            "out": self.out,
            "error": self.error,
        }


def run_rows(records: list[dict[str, Any]], states: dict[str, CheckpointState]) -> list[RunRow]:
    rows = []
    for record in records:
        run_id = str(record["run_id"])
        recorded = record.get("status")
        rows.append(
            RunRow(
                run_id=run_id,
                started=str(record.get("started") or ""),
                question=str(record.get("question") or ""),
                status=run_status(
                    recorded if isinstance(recorded, str) else None,
                    states.get(run_id),
                    alive=_alive(record.get("pid")),
                ),
                kind=_text(record.get("kind")),
                out=_text(record.get("out")),
                error=_text(record.get("error")),
            )
        )
    return rows


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _alive(pid: object) -> bool:
    """Whether a process with this id runs on this machine (the run's, unless the id was
    reused since)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    return True
