"""A watch's job counts against its key's submission rate limit (issue 25), on SQLite and
PostgreSQL: a due time that would go past the limit is put off, not dropped, and the
watch says so (until when, and why: the due time held back and the limit, in the API's
view); it is not claimed before then and runs once when the window has room, which
clears the deferral; ``run-now`` and ``pause`` clear it too. (``test_watch_claims.py``
checks the put-off due time and the submission the watch's job then refuses.) Before,
the watch only logged it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deepresearch.service.db import open_database
from deepresearch.service.store import JobStore, Limits, SubmissionRateLimited
from deepresearch.service.watch_routes import _view
from deepresearch.service.watch_scheduler import WatchScheduler
from deepresearch.settings import load_settings
from deepresearch.settings_groups import ServiceSettings

from .helpers import new_watch, queue_job

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)
WINDOW_S = 900.0
LIMITS = Limits(window_s=WINDOW_S, per_window=2, ttl_s=3600)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def _submit(store: JobStore, question: str) -> None:
    queue_job(store, question, owner="o", limits=LIMITS)


def test_a_due_watch_past_the_rate_limit_is_deferred_not_dropped(
    database_url: str, tmp_path: Path
) -> None:
    clock = Clock(T0)
    settings = load_settings(
        database_url=database_url,
        data_dir=tmp_path / "d",
        submissions_per_window=LIMITS.per_window,
        submission_window_s=WINDOW_S,
    )
    store = JobStore(open_database(settings), clock)
    scheduler = WatchScheduler(store, ServiceSettings.of(settings), name="s")
    _submit(store, "What is new in CPython?")
    _submit(store, "What is new in PyPy?")
    watch = new_watch(store, T0)
    assert scheduler.tick() == (0, 0)  # the key's window is full
    deferred = store.get_watch(watch.id)
    until = T0 + timedelta(seconds=WINDOW_S)
    assert deferred is not None and deferred.next_due == deferred.deferred_until == until
    assert deferred.deferred_reason == (
        "the due time 2026-11-01T07:00:00+00:00 is put off: the key's submission rate "
        "limit (2 per 900 s) is reached"
    )
    shown = _view(deferred).model_dump(mode="json")
    assert shown["deferred_until"] and "rate limit" in shown["deferred_reason"]
    assert store.watch_runs(watch.id) == []

    clock.now += timedelta(seconds=WINDOW_S / 2)
    assert scheduler.tick() == (0, 0)  # not before its time
    clock.now = T0 + timedelta(seconds=WINDOW_S + 1)
    assert scheduler.tick() == (1, 0)
    ran = store.get_watch(watch.id)
    assert ran is not None and ran.deferred_until is None and ran.deferred_reason is None
    [run] = store.watch_runs(watch.id)
    assert run.due_at == until  # the put-off due time ran, once
    assert ran.next_due == clock.now + timedelta(hours=1)
    assert scheduler.tick() == (0, 0)

    # the watch's job counts like a submission: one more fills the window again
    _submit(store, "What is new in Jython?")
    with pytest.raises(SubmissionRateLimited):
        _submit(store, "What is new in IronPython?")
    store.engine.dispose()


def test_run_now_and_resume_look_again(database_url: str, tmp_path: Path) -> None:
    clock = Clock(T0)
    settings = load_settings(
        database_url=database_url,
        data_dir=tmp_path / "d",
        submissions_per_window=LIMITS.per_window,
        submission_window_s=WINDOW_S,
    )
    store = JobStore(open_database(settings), clock)
    scheduler = WatchScheduler(store, ServiceSettings.of(settings), name="s")
    _submit(store, "What is new in CPython?")
    _submit(store, "What is new in PyPy?")
    watch = new_watch(store, T0)
    assert scheduler.tick() == (0, 0)
    again = store.due_now(watch.id, "o")
    assert again is not None and again.deferred_until is None
    assert scheduler.tick() == (0, 0)  # still no room: deferred again, and says so
    deferred = store.get_watch(watch.id)
    assert deferred is not None and deferred.deferred_until is not None
    paused = store.set_watch_state(watch.id, "o", "paused", None)
    assert paused is not None and paused.deferred_until is None
    store.engine.dispose()
