"""Watches from Python (issue 25, docs/watches.md): a question re-run on a schedule and
the change report of each run. The same database and rules as ``deepresearch watch``
and ``/v1/watches``: the scheduler inside ``deepresearch serve`` or a worker runs the
due ones; these functions only read and write the watches.

>>> from deepresearch import watches
>>> watch = watches.add("What changed in the EU AI Act?", every="1d", data_dir=folder)
>>> watch.schedule, watch.state
('every 86400s', 'active')
>>> [w.question for w in watches.list_watches(data_dir=folder)]
['What changed in the EU AI Act?']
>>> watches.pause(watch.id, data_dir=folder).state
'paused'
>>> watches.resume(watch.id, data_dir=folder).state
'active'
>>> watches.reports(watch.id, data_dir=folder)   # none until the scheduler ran it
[]
>>> watches.remove(watch.id, data_dir=folder)

Every function takes ``settings`` (a ``Settings``, or anything with its ``data_dir``,
``database_url``, ``max_watches_per_key`` and ``watch_min_interval_s``) or
``data_dir``, else the settings the CLI would load, and works on the local owner's
watches (the service's key-less caller, ``deepresearch watch`` without ``--key``).
A schedule that cannot be read or runs too often, too many watches or an unknown
watch raises ``InvalidInput`` before anything is written."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, get_args

from deepresearch.core.watch_schedule import ScheduleError, next_due, parse_stored, schedule_of
from deepresearch.errors import DeepResearchError, InvalidInput
from deepresearch.models.library import LOCAL_OWNER
from deepresearch.models.watch import ChangeReport, Watch
from deepresearch.service.db import open_database
from deepresearch.service.store import JobStore, WatchLimitReached
from deepresearch.settings_groups import Storage
from deepresearch.settings_values import Depth

__all__ = [
    "ChangeReport",
    "Desk",
    "Watch",
    "add",
    "list_watches",
    "pause",
    "remove",
    "reports",
    "resume",
    "run_now",
]

_LIST_HINT = "see deepresearch.watches.list_watches()"
_JOBS_HINT = "give the id of a completed research job of the same owner"
DEPTHS: tuple[str, ...] = get_args(Depth)


class WatchSettings(Storage, Protocol):
    """What the watch functions read of ``Settings``."""

    @property
    def max_watches_per_key(self) -> int: ...

    @property
    def watch_min_interval_s(self) -> float: ...


def _settings(settings: WatchSettings | None, data_dir: Path | str | None) -> WatchSettings:
    if settings is not None:
        return settings
    from deepresearch.compose.storage import default_settings

    return default_settings(data_dir)


@contextmanager
def _store(settings: WatchSettings) -> Iterator[JobStore]:
    engine = open_database(settings)
    try:
        yield JobStore(engine)
    finally:
        engine.dispose()


def _vet(url: str) -> None:
    """Refuse a webhook the service would not deliver to (``InvalidInput``). The check
    resolves the host, on an event loop of its own in a thread of its own, so a caller
    inside a running loop can add a watch too."""
    from deepresearch.fetch.webhook import vet_webhook

    with ThreadPoolExecutor(max_workers=1) as pool:
        try:
            pool.submit(asyncio.run, vet_webhook(url)).result()
        except DeepResearchError as exc:
            raise InvalidInput(exc.message, hint=exc.hint) from None


def _found(watch: Watch | None, watch_id: str) -> Watch:
    if watch is None:
        raise InvalidInput(f"no watch {watch_id!r}", hint=_LIST_HINT)
    return watch


@dataclass(frozen=True)
class Desk:
    """One owner's watches in one store, with the limits they are added under: what the
    module's functions (the local owner's) and the MCP tools (the caller's) work through."""

    store: JobStore
    owner: str
    max_watches: int
    min_interval_s: float

    def add(
        self,
        question: str,
        every: str | None,
        cron: str | None,
        *,
        depth: str | None = None,
        thread: str | None = None,
        webhook: str | None = None,
    ) -> Watch:
        """A new watch; ``InvalidInput`` for an empty question, a bad schedule, an unknown
        depth, a ``thread`` that is no finished job of the owner's, a webhook the service
        would not deliver to, or one watch too many. Nothing is stored then."""
        text = question.strip()
        if not text:
            raise InvalidInput("the question is empty", hint="ask something to watch")
        if depth is not None and depth not in DEPTHS:
            raise InvalidInput(f"depth {depth!r}: choose {', '.join(DEPTHS)}")
        if thread is not None:
            job = self.store.get(thread, self.owner)
            if job is None or job.status != "COMPLETED":
                raise InvalidInput(f"no finished job {thread!r} of yours", hint=_JOBS_HINT)
        if webhook is not None:
            _vet(webhook)
        now = self.store.clock()
        try:
            schedule = schedule_of(every=every, cron=cron, minimum_s=self.min_interval_s, now=now)
            return self.store.add_watch(
                owner=self.owner,
                question=text,
                schedule=schedule.text,
                options={"depth": depth} if depth else {},
                first_due=now,  # the first run starts at the scheduler's next tick
                thread=thread,
                max_watches=self.max_watches,
                webhook_url=webhook,
            )
        except (ScheduleError, WatchLimitReached) as exc:
            raise InvalidInput(str(exc)) from None

    def all(self) -> list[Watch]:
        return self.store.list_watches(self.owner)

    def pause(self, watch_id: str) -> Watch:
        return _found(self.store.set_watch_state(watch_id, self.owner, "paused", None), watch_id)

    def resume(self, watch_id: str) -> Watch:
        found = _found(self.store.get_watch(watch_id, self.owner), watch_id)
        due = next_due(parse_stored(found.schedule), self.store.clock())
        return _found(self.store.set_watch_state(watch_id, self.owner, "active", due), watch_id)

    def run_now(self, watch_id: str) -> Watch:
        _found(self.store.get_watch(watch_id, self.owner), watch_id)
        due = self.store.due_now(watch_id, self.owner)
        if due is None:
            raise InvalidInput(f"watch {watch_id!r} is paused", hint="resume it first")
        return due

    def remove(self, watch_id: str) -> None:
        if not self.store.remove_watch(watch_id, self.owner):
            raise InvalidInput(f"no watch {watch_id!r}", hint=_LIST_HINT)

    def reports(self, watch_id: str) -> list[ChangeReport]:
        found = _found(self.store.get_watch(watch_id, self.owner), watch_id)
        return [run.report for run in self.store.watch_runs(found.id) if run.report is not None]


@contextmanager
def _desk(settings: WatchSettings | None, data_dir: Path | str | None) -> Iterator[Desk]:
    chosen = _settings(settings, data_dir)
    with _store(chosen) as store:
        yield Desk(store, LOCAL_OWNER, chosen.max_watches_per_key, chosen.watch_min_interval_s)


def add(
    question: str,
    *,
    every: str | None = None,
    cron: str | None = None,
    depth: Depth | None = None,
    thread: str | None = None,
    webhook: str | None = None,
    settings: WatchSettings | None = None,
    data_dir: Path | str | None = None,
) -> Watch:
    """Watch ``question``, ``every`` 30m, 6h, 1d or 1w, or on a ``cron`` expression; its
    first run starts at the scheduler's next tick. ``depth``: quick, standard or deep;
    ``thread``: a finished job its first run is compared with; ``webhook``: where each
    change report is POSTed (https, or http to a loopback address), signed with the
    returned watch's ``webhook_secret`` (read it now: it is never shown again)."""
    with _desk(settings, data_dir) as desk:
        return desk.add(question, every, cron, depth=depth, thread=thread, webhook=webhook)


def list_watches(
    *, settings: WatchSettings | None = None, data_dir: Path | str | None = None
) -> list[Watch]:
    """The local owner's watches."""
    with _desk(settings, data_dir) as desk:
        return desk.all()


def pause(
    watch_id: str, *, settings: WatchSettings | None = None, data_dir: Path | str | None = None
) -> Watch:
    """Pause a watch: no run starts until it is resumed."""
    with _desk(settings, data_dir) as desk:
        return desk.pause(watch_id)


def resume(
    watch_id: str, *, settings: WatchSettings | None = None, data_dir: Path | str | None = None
) -> Watch:
    """Resume a paused watch from its next due time."""
    with _desk(settings, data_dir) as desk:
        return desk.resume(watch_id)


def run_now(
    watch_id: str, *, settings: WatchSettings | None = None, data_dir: Path | str | None = None
) -> Watch:
    """Make a watch due now: the scheduler runs it on its next tick. A paused watch is
    ``InvalidInput`` (resume it first)."""
    with _desk(settings, data_dir) as desk:
        return desk.run_now(watch_id)


def remove(
    watch_id: str, *, settings: WatchSettings | None = None, data_dir: Path | str | None = None
) -> None:
    """Remove a watch and its change reports (the runs it started stay)."""
    with _desk(settings, data_dir) as desk:
        desk.remove(watch_id)


def reports(
    watch_id: str, *, settings: WatchSettings | None = None, data_dir: Path | str | None = None
) -> list[ChangeReport]:
    """The watch's change reports, newest first (render one with
    ``deepresearch.export.watch_report.change_document``)."""
    with _desk(settings, data_dir) as desk:
        return desk.reports(watch_id)
