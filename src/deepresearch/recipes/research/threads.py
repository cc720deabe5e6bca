"""Threads of research runs in the checkpoint store: a follow-up's parent read (a
finished research run), a new turn recorded in the thread's first run (its root), the
thread's turns listed from any of its runs.

A thread needs no table of its own: each follow-up's state names its root and the run it
follows (``Thread``), and the root's state lists the turns that followed it
(``thread_turns``, written as ``evaluation.py`` writes an evaluation: a state update on
the finished run), so SQLite and PostgreSQL checkpoints hold threads alike. Recording a turn reads the
root's list and writes it back under the store's lock (``checkpoints.store_lock``), so
follow-ups of one thread recording their turns at once each add theirs.

A follow-up reaches them through ``StoredThreads`` (``RunContext.threads``): what it reads
of its parent is one ``ParentTurn``, which a run's recording keeps and its replay serves
(``replay.ports``), so a follow-up replays without its parent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig

from deepresearch.checkpoints import describe, open_checkpointer, store_lock
from deepresearch.core.ids import check_run_id
from deepresearch.errors import InvalidInput, RunError, RunNotFound
from deepresearch.models import Report
from deepresearch.models.report import REPLY_KINDS
from deepresearch.models.thread import ParentTurn, Thread, Turn
from deepresearch.recipes.registry import DEFAULT_RECIPE, checkpoint_types
from deepresearch.recipes.research.graph import build_graph
from deepresearch.settings_groups import Storage

NODE = "evaluate"  # the last node: a state update as it leaves the run finished


def _config(run_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": run_id}}


async def load_parent(settings: Storage, run_id: str) -> dict[str, Any]:
    """The state of finished research run ``run_id``, which a follow-up continues; a clear
    error when there is none, it is another recipe's, unfinished, or ended with a reply."""
    check_run_id(run_id)
    async with open_checkpointer(settings, checkpoint_types()) as saver:
        snapshot = await build_graph(saver).aget_state(_config(run_id))
    values = dict(snapshot.values)
    if not values:
        raise RunNotFound(
            f"no run {run_id!r} in {describe(settings)}",
            hint="check the run id, and that DEEPRESEARCH_DATA_DIR is the one it used",
        )
    check_parent(run_id, values, finished=not snapshot.next)
    return values


async def read_parent(settings: Storage, run_id: str) -> ParentTurn:
    """What a follow-up reads of finished research run ``run_id`` (``load_parent``'s
    errors when it cannot be followed up)."""
    values = await load_parent(settings, run_id)
    report = values.get("report")
    thread = values.get("thread")
    if isinstance(thread, Thread):  # what it carried over is in its own state too
        thread = thread.model_copy(update={"sources": {}, "evidence": [], "sub_questions": []})
    return ParentTurn(
        run_id=run_id,
        question=str(values.get("question", "")),
        thread=thread if isinstance(thread, Thread) else None,
        cited=list(report.cited_evidence_ids()) if isinstance(report, Report) else [],
        sources=dict(values.get("sources", {})),
        evidence=list(values.get("evidence", [])),
        sub_questions=list(values.get("sub_questions", [])),
    )


class ResearchFollowups:
    """The research recipe's follow-up turns (``recipes.base.Followups``)."""

    def store(self, storage: Storage) -> StoredThreads:
        return StoredThreads(storage)

    async def check_parent(self, storage: Storage, run_id: str) -> None:
        await load_parent(storage, run_id)

    async def turns(self, storage: Storage, run_id: str) -> list[Turn]:
        return await thread_turns(storage, run_id)


class StoredThreads:
    """The checkpoint store's threads, as a follow-up reads and extends them."""

    def __init__(self, settings: Storage) -> None:
        self.settings = settings

    async def parent(self, run_id: str) -> ParentTurn:
        return await read_parent(self.settings, run_id)

    async def record_turn(self, root: str, turn: Turn) -> None:
        await record_turn(self.settings, root, turn)


def check_parent(run_id: str, values: Mapping[str, Any], *, finished: bool) -> None:
    """Why run ``run_id`` (its state ``values``) cannot be followed up, as an error."""
    recipe = values.get("recipe") or DEFAULT_RECIPE
    if recipe != DEFAULT_RECIPE:
        raise InvalidInput(
            f"run {run_id!r} is a {recipe!r} run; only research runs take follow-ups"
        )
    report = values.get("report")
    if not finished or not isinstance(report, Report):
        raise RunError(
            f"run {run_id!r} has not finished",
            hint="ask a follow-up once its report is written",
        )
    if report.kind in REPLY_KINDS:  # a reply, not research: nothing to follow up
        raise InvalidInput(
            f"run {run_id!r} ended with a {report.kind}, not a report: ask a new question instead"
        )


def root_of(run_id: str, values: Mapping[str, Any]) -> str:
    thread = values.get("thread")
    return thread.info.root if isinstance(thread, Thread) else run_id


def turn_of(values: Mapping[str, Any]) -> int:
    thread = values.get("thread")
    return thread.info.turn if isinstance(thread, Thread) else 1


async def record_turn(settings: Storage, root: str, turn: Turn) -> None:
    """Add ``turn`` to the turns the thread's root lists (once per run id). Follow-ups of
    one thread may record their turns at the same moment, from several processes: each
    reads the list and writes it back under ``store_lock``, so none is lost."""
    async with (
        open_checkpointer(settings, checkpoint_types()) as saver,
        store_lock(settings, saver, f"thread {root}"),
    ):
        graph = build_graph(saver)
        values = (await graph.aget_state(_config(root))).values
        turns = [t for t in values.get("thread_turns", []) if t.run_id != turn.run_id]
        await graph.aupdate_state(_config(root), {"thread_turns": [*turns, turn]}, as_node=NODE)


async def thread_turns(settings: Storage, run_id: str) -> list[Turn]:
    """Every turn of the thread run ``run_id`` belongs to, first to last: the root, then
    its follow-ups (empty when there is no such run)."""
    check_run_id(run_id)
    async with open_checkpointer(settings, checkpoint_types()) as saver:
        graph = build_graph(saver)
        values = (await graph.aget_state(_config(run_id))).values
        if not values:
            return []
        root = root_of(run_id, values)
        if root != run_id:
            values = (await graph.aget_state(_config(root))).values
        if not values:
            return []
    first = Turn(run_id=root, turn=1, question=str(values.get("question", "")))
    return [first, *sorted(values.get("thread_turns", []), key=lambda t: (t.turn, t.run_id))]
