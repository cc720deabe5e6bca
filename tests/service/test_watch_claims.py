"""Claiming due watches through the database (issue 25): a missed stretch runs once, a
paused watch not at all, a change report's lease lapses to another process; and on one
PostgreSQL, several scheduler processes and a ``kill -9`` of the one holding a due time
mid-claim: each due time queues exactly one job."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update

from deepresearch.service.db import make_engine, open_database
from deepresearch.service.store import JobStore, Limits, SubmissionRateLimited
from deepresearch.service.tables import research_jobs, watch_runs
from deepresearch.service.watch_scheduler import WatchScheduler, due_after
from deepresearch.settings import load_settings
from deepresearch.settings_groups import ServiceSettings

from .helpers import new_watch, queue_job
from .postgres import PostgresServer

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def _store(database_url: str, tmp_path: Path, clock: Clock) -> JobStore:
    engine = open_database(load_settings(database_url=database_url, data_dir=tmp_path / "d"))
    return JobStore(engine, clock)


def _add(store: JobStore, schedule: str = "every 3600s", due: datetime = T0) -> str:
    return new_watch(store, due, schedule=schedule).id


def test_missed_stretch_runs_once_and_paused_never(database_url: str, tmp_path: Path) -> None:
    clock = Clock(T0 + timedelta(days=3))
    store = _store(database_url, tmp_path, clock)
    watch_id = _add(store)
    paused = _add(store)
    store.set_watch_state(paused, "o", "paused", None)
    [(watch, job)] = store.claim_due(due_after, ttl_s=3600)
    assert watch.id == watch_id and job.status == "QUEUED" and job.owner == "o"
    assert store.claim_due(due_after, ttl_s=3600) == []
    stored = store.get_watch(watch_id)
    assert stored is not None and stored.last_run == job.id
    assert stored.next_due == clock.now + timedelta(hours=1)
    [run] = store.watch_runs(watch_id)
    assert run.due_at == T0 and run.job_id == job.id and run.status == "running"
    store.engine.dispose()


def test_a_key_at_its_submission_limit_has_its_due_runs_put_off(
    database_url: str, tmp_path: Path
) -> None:
    """A watch's jobs count against its key's submission limit like any other: with room
    for one more job in the window, one of two due watches is queued and the other is put
    off (not dropped) to when the window frees; then it runs."""
    clock = Clock(T0)
    store = _store(database_url, tmp_path, clock)
    rate = Limits(window_s=900, per_window=2, ttl_s=3600)
    assert queue_job(store, owner="o", limits=rate).created
    first, second = _add(store), _add(store)
    deferred: list[tuple[Any, float]] = []
    [(queued, _)] = store.claim_due(due_after, ttl_s=3600, rate=rate, deferred=deferred)
    [(put_off, wait)] = deferred
    assert {queued.id, put_off.id} == {first, second} and wait == 900
    later = store.get_watch(put_off.id)
    assert later is not None and later.next_due == T0 + timedelta(seconds=900)
    with pytest.raises(SubmissionRateLimited):  # the watch's job took the last room
        queue_job(store, "another", owner="o", limits=rate)
    clock.now = T0 + timedelta(seconds=901)
    [(ran, job)] = store.claim_due(due_after, ttl_s=3600, rate=rate)
    assert ran.id == put_off.id and job.status == "QUEUED"
    store.engine.dispose()


def test_a_report_lease_lapses_to_another(database_url: str, tmp_path: Path) -> None:
    clock = Clock(T0)
    store = _store(database_url, tmp_path, clock)
    watch_id = _add(store)
    [(_, job)] = store.claim_due(due_after, ttl_s=3600)
    assert store.claim_report("a", 60) is None  # the job has not ended
    with store.engine.begin() as conn:
        conn.execute(
            update(research_jobs).where(research_jobs.c.id == job.id).values(status="FAILED")
        )
    first = store.claim_report("a", 60)
    assert first is not None
    assert store.claim_report("b", 60) is None  # "a" holds it
    clock.now += timedelta(seconds=61)  # "a" died: its lease lapses
    second = store.claim_report("b", 60)
    assert second is not None
    settings = ServiceSettings.of(load_settings(data_dir=tmp_path / "d"))
    late = WatchScheduler(store, settings, name="a")
    assert not late.write_report(*first)  # "a" no longer holds it
    assert WatchScheduler(store, settings, name="b").write_report(*second)
    [run] = store.watch_runs(watch_id)
    assert run.status == "reported" and run.report is not None
    assert run.report.error and run.summary and run.summary.startswith("the run did not finish")
    store.engine.dispose()


_HANG = """
import sys, time, pathlib
from deepresearch.service.db import make_engine
from deepresearch.service.store import JobStore, Limits, SubmissionRateLimited
store = JobStore(make_engine(sys.argv[1]))
def hang(watch, now):
    pathlib.Path(sys.argv[2]).write_text(watch.id)
    time.sleep(600)
store.claim_due(hang, ttl_s=3600)
"""

_TICK = """
import sys, time
from deepresearch.service.db import make_engine
from deepresearch.service.store import JobStore, Limits, SubmissionRateLimited
from deepresearch.service.watch_scheduler import due_after
store = JobStore(make_engine(sys.argv[1]))
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    store.claim_due(due_after, ttl_s=3600)
    time.sleep(0.01)
"""


def _claims(database_url: str) -> tuple[dict[str, list[datetime]], dict[str, int]]:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            runs = conn.execute(
                select(watch_runs.c.watch_id, watch_runs.c.due_at).order_by(watch_runs.c.due_at)
            ).all()
            jobs = conn.execute(
                select(research_jobs.c.idempotency_key, func.count()).group_by(
                    research_jobs.c.idempotency_key
                )
            ).all()
    finally:
        engine.dispose()
    due: dict[str, list[datetime]] = {}
    for watch_id, due_at in runs:
        due.setdefault(watch_id, []).append(due_at)
    return due, {str(key): int(count) for key, count in jobs}


@pytest.mark.serial
def test_each_due_time_once_across_processes_and_a_kill(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = postgres_server.new_database()
    store = _store(url, tmp_path, Clock(T0))
    store.clock = lambda: datetime.now(UTC)
    now = datetime.now(UTC)
    watch_ids = [_add(store, "every 1s", now) for _ in range(3)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    flag = tmp_path / "claiming"
    victim = subprocess.Popen([sys.executable, "-c", _HANG, url, str(flag)], env=env)
    deadline = time.monotonic() + 60
    while not flag.exists():
        assert victim.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    tickers = [subprocess.Popen([sys.executable, "-c", _TICK, url, "6"], env=env) for _ in range(3)]
    time.sleep(2)  # the tickers skip the rows the victim holds
    held, _ = _claims(url)
    assert held == {}  # the victim's claim is not committed, and nobody else's yet
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    for ticker in tickers:
        assert ticker.wait(timeout=60) == 0
    due, jobs = _claims(url)
    assert set(due) == set(watch_ids)
    for watch_id, times in due.items():
        assert times[0] == now  # the due time the killed process held ran, once
        assert len(times) == len(set(times)) >= 3
        # a due time is one second after the claim of the one before: never one per tick
        assert all(b - a >= timedelta(seconds=1) for a, b in itertools.pairwise(times))
        keys = [k for k in jobs if k.startswith(f"watch:{watch_id}:")]
        assert len(keys) == len(times) and all(jobs[k] == 1 for k in keys)
    store.engine.dispose()


def test_a_watch_keeps_its_newest_reports(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deepresearch.service.store import watches

    monkeypatch.setattr(watches, "KEEP_REPORTS", 2)
    clock = Clock(T0)
    store = _store(database_url, tmp_path, clock)
    watch_id = _add(store)
    scheduler = WatchScheduler(store, ServiceSettings.of(load_settings(data_dir=tmp_path / "d")))
    due: list[datetime] = []
    for _ in range(4):
        clock.now += timedelta(hours=1, seconds=1)
        [(claimed, job)] = store.claim_due(due_after, ttl_s=3600)
        due.append(claimed.next_due)
        with store.engine.begin() as conn:
            conn.execute(
                update(research_jobs).where(research_jobs.c.id == job.id).values(status="FAILED")
            )
        assert scheduler.tick() == (0, 1)
    assert [run.due_at for run in store.watch_runs(watch_id)] == due[:1:-1]
    store.engine.dispose()
