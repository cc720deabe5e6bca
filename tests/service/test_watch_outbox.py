"""The webhook outbox (issue 25), on SQLite and PostgreSQL: a change report's delivery is
a row written with the report, so one pending (mid-retry, with backoff) when its sender
goes is sent by another sender on the same database, once, signed; a claim whose holder
died lapses to another; attempts are capped, then the delivery is failed and shown with
the watch's run; a refusal is not retried. Before the outbox a delivery lived in one
process's memory and was lost with it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import update

from deepresearch.service.db import make_engine, open_database
from deepresearch.service.store import JobStore
from deepresearch.service.tables import research_jobs
from deepresearch.service.watch_delivery import DELIVERY_LEASE_S, Outbox
from deepresearch.service.watch_routes import _view
from deepresearch.service.watch_scheduler import WatchScheduler, due_after
from deepresearch.settings import load_settings
from deepresearch.settings_groups import ServiceSettings

from .helpers import new_watch
from .webhook_receiver import Receiver, signed, webhook_receiver

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def _store(database_url: str, tmp_path: Path, clock: Clock) -> JobStore:
    engine = open_database(load_settings(database_url=database_url, data_dir=tmp_path / "d"))
    return JobStore(engine, clock)


def _reported(store: JobStore, tmp_path: Path, hook: str) -> tuple[str, str]:
    """A watch with a webhook whose first run's report is written: (its id, its secret)."""
    watch = new_watch(store, T0, webhook=hook)
    [(_, job)] = store.claim_due(due_after, ttl_s=3600)
    with store.engine.begin() as conn:
        conn.execute(
            update(research_jobs).where(research_jobs.c.id == job.id).values(status="FAILED")
        )
    settings = ServiceSettings.of(load_settings(data_dir=tmp_path / "d"))
    assert WatchScheduler(store, settings, name="writer").tick() == (0, 1)
    assert watch.webhook_secret
    return watch.id, watch.webhook_secret


async def test_a_pending_delivery_is_sent_by_another_sender_once(
    database_url: str, tmp_path: Path
) -> None:
    clock = Clock(T0)
    store = _store(database_url, tmp_path, clock)
    with webhook_receiver() as receiver:
        watch_id, secret = _reported(store, tmp_path, receiver.url)
        receiver.answer = 503
        first = Outbox(store, "first", attempts=5, backoff_s=10)
        assert await first.send_due() == 1
        [run] = store.watch_runs(watch_id)
        assert run.delivery is not None and run.delivery.status == "pending"
        assert run.delivery.attempts == 1 and run.delivery.last_error
        assert "503" in run.delivery.last_error
        assert run.delivery.next_attempt_at is not None and run.delivery.next_attempt_at > T0
        # the first sender's process is gone; another on the same database takes over
        other = JobStore(make_engine(database_url), clock)
        second = Outbox(other, "second", attempts=5, backoff_s=10)
        assert await second.send_due() == 0  # not before its backoff
        receiver.answer = 204
        clock.now = run.delivery.next_attempt_at
        assert await second.send_due() == 1
        clock.now += timedelta(hours=2)
        assert await second.send_due() == 0 and await first.send_due() == 0
        [(body, signature)] = receiver.taken()
    assert signed(secret, body, signature)
    assert json.loads(body)["watch_id"] == watch_id
    [run] = store.watch_runs(watch_id)
    assert run.delivery is not None and run.delivery.status == "delivered"
    assert run.delivery.attempts == 2 and run.delivery.delivered_at == clock.now - timedelta(
        hours=2
    )
    assert store.pending_deliveries() == 0
    other.engine.dispose()
    store.engine.dispose()


def test_a_claim_whose_holder_died_lapses_to_another(database_url: str, tmp_path: Path) -> None:
    clock = Clock(T0)
    store = _store(database_url, tmp_path, clock)
    _reported(store, tmp_path, "http://127.0.0.1:9/hook")
    held = store.claim_delivery("a", DELIVERY_LEASE_S)
    assert held is not None and held.attempt == 1
    assert store.claim_delivery("b", DELIVERY_LEASE_S) is None  # "a" holds it
    clock.now += timedelta(seconds=DELIVERY_LEASE_S + 1)  # "a" was killed mid-POST
    taken = store.claim_delivery("b", DELIVERY_LEASE_S)
    assert taken is not None and taken.attempt == 2 and taken.body == held.body
    assert not store.finish_delivery(held, "a", delivered=True)  # "a" lost its claim
    assert store.finish_delivery(taken, "b", delivered=True)
    assert store.claim_delivery("c", DELIVERY_LEASE_S) is None
    store.engine.dispose()


async def _attempts(outbox: Outbox, clock: Clock, receiver: Receiver, times: int) -> None:
    for _ in range(times):
        await outbox.send_due()
        clock.now += timedelta(hours=2)  # past any backoff


async def test_attempts_are_capped_then_failed_and_shown(database_url: str, tmp_path: Path) -> None:
    clock = Clock(T0)
    store = _store(database_url, tmp_path, clock)
    with webhook_receiver() as receiver:
        watch_id, _ = _reported(store, tmp_path, receiver.url)
        receiver.answer = 502
        await _attempts(Outbox(store, "a", attempts=3, backoff_s=1), clock, receiver, 5)
        assert [status for _, _, status in receiver.posts] == [502, 502, 502]
    watch = store.get_watch(watch_id)
    assert watch is not None
    shown = _view(watch, store.watch_runs(watch_id)).model_dump(mode="json")
    webhook = shown["runs"][0]["webhook"]
    assert webhook["status"] == "failed" and webhook["attempts"] == 3
    assert webhook["last_error"] == "the receiver answered 502"
    assert webhook["next_attempt_at"] is None and webhook["delivered_at"] is None
    store.engine.dispose()


async def test_a_refusal_is_not_retried(database_url: str, tmp_path: Path) -> None:
    clock = Clock(T0)
    store = _store(database_url, tmp_path, clock)
    with webhook_receiver() as receiver:
        watch_id, _ = _reported(store, tmp_path, receiver.url)
        receiver.answer = 410
        await _attempts(Outbox(store, "a", attempts=5, backoff_s=1), clock, receiver, 3)
        assert len(receiver.posts) == 1
    [run] = store.watch_runs(watch_id)
    assert run.delivery is not None and run.delivery.status == "failed"
    assert run.delivery.last_error == "the receiver answered 410"
    store.engine.dispose()


def test_a_watch_without_a_webhook_queues_nothing(database_url: str, tmp_path: Path) -> None:
    clock = Clock(T0)
    store = _store(database_url, tmp_path, clock)
    watch = new_watch(store, T0)
    [(_, job)] = store.claim_due(due_after, ttl_s=3600)
    with store.engine.begin() as conn:
        conn.execute(
            update(research_jobs).where(research_jobs.c.id == job.id).values(status="FAILED")
        )
    settings = ServiceSettings.of(load_settings(data_dir=tmp_path / "d"))
    assert WatchScheduler(store, settings).tick() == (0, 1)
    [run] = store.watch_runs(watch.id)
    assert run.status == "reported" and run.delivery is None
    assert store.pending_deliveries() == 0
    store.engine.dispose()


async def test_a_receiver_that_hangs_never_holds_the_scheduler_back(
    database_url: str, tmp_path: Path
) -> None:
    clock = Clock(T0)
    store = _store(database_url, tmp_path, clock)
    with webhook_receiver() as receiver:
        _reported(store, tmp_path, receiver.url)
        receiver.gate.clear()  # the receiver takes the POST and does not answer
        later = new_watch(store, T0, question="What else changed?")
        settings = ServiceSettings.of(load_settings(data_dir=tmp_path / "d", watch_tick_s=0.05))
        task = asyncio.create_task(WatchScheduler(store, settings, name="s").run_every())
        try:
            await asyncio.to_thread(receiver.arrived.wait, 30)
            for _ in range(600):  # the scheduler's passes go on while the POST hangs
                if store.watch_runs(later.id):
                    break
                await asyncio.sleep(0.05)
            assert store.watch_runs(later.id) and not receiver.posts
        finally:
            receiver.gate.set()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    store.engine.dispose()
