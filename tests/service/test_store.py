"""The job store on SQLite and PostgreSQL: idempotent submissions under a race, attaching
to the active run, rate limits, leases and their expiry, TTL, event sequences."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, insert, update

from deepresearch.events import once_per_fact
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import (
    EvidenceAdded,
    ModelCalled,
    RunCompleted,
    SourceFetched,
    StageStarted,
)
from deepresearch.models.events import Payload, StoredData
from deepresearch.service.db import make_engine, migrate
from deepresearch.service.jobs import request_hash
from deepresearch.service.store import (
    IdempotencyMismatch,
    JobStore,
    Limits,
    SubmissionRateLimited,
)
from deepresearch.service.tables import job_events, metadata, research_jobs

LIMITS = Limits(window_s=900, per_window=10, ttl_s=3600)


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    migrate(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(engine: Engine, clock: FakeClock) -> JobStore:
    return JobStore(engine, clock)


def submit(store: JobStore, question: str = "q", **extra: Any) -> Any:
    args: dict[str, Any] = {
        "owner": "alice",
        "question": question,
        "recipe": "research",
        "options": {},
        "request_hash": request_hash(question, "research", {}),
        "idempotency_key": None,
        "max_active_runs": 100,
        "limits": LIMITS,
    }
    args.update(extra)
    return store.submit(**args)


def test_migrations_match_the_tables(engine: Engine) -> None:
    migrate(engine)  # a second upgrade is a no-op
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []


def test_idempotency_key_replays_and_refuses_a_different_body(store: JobStore) -> None:
    first = submit(store, idempotency_key="k1")
    again = submit(store, idempotency_key="k1")
    assert first.created and again.replayed and again.job.id == first.job.id
    with pytest.raises(IdempotencyMismatch):
        submit(store, "another question", idempotency_key="k1")
    other_owner = submit(store, idempotency_key="k1", owner="bob")
    assert other_owner.created and other_owner.job.id != first.job.id


def test_fifty_racing_submissions_with_one_key_make_one_job(store: JobStore) -> None:
    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(lambda _: submit(store, idempotency_key="race"), range(50)))
    assert len({result.job.id for result in results}) == 1
    assert sum(result.created for result in results) == 1
    assert store.queue_counts()["QUEUED"] == 1


def test_a_second_submission_attaches_to_the_active_run(store: JobStore) -> None:
    first = submit(store, max_active_runs=1)
    second = submit(store, "a different question", max_active_runs=1)
    assert second.attached and second.job.id == first.job.id
    allowed = submit(store, "a different question", max_active_runs=2)
    assert allowed.created


def test_rate_limit_counts_a_sliding_window(store: JobStore, clock: FakeClock) -> None:
    limits = Limits(window_s=900, per_window=3, ttl_s=3600)
    for n in range(3):
        submit(store, f"q{n}", limits=limits)
        clock.advance(60)
    with pytest.raises(SubmissionRateLimited) as refused:
        submit(store, "q3", limits=limits)
    # the oldest of the three leaves the window 900 s after it came: 720 s from now
    assert refused.value.retry_after_s == pytest.approx(720)
    clock.advance(721)
    assert submit(store, "q3", limits=limits).created


def test_claims_go_in_order_and_a_lapsed_lease_is_taken_over(
    store: JobStore, clock: FakeClock
) -> None:
    first = submit(store, "a").job
    clock.advance(1)
    second = submit(store, "b").job
    claimed = store.claim("w1", lease_s=30)
    assert claimed is not None and claimed.id == first.id and claimed.attempts == 1
    assert store.claim("w2", lease_s=30).id == second.id  # type: ignore[union-attr]
    assert store.claim("w2", lease_s=30) is None
    clock.advance(20)
    assert store.renew(first.id, "w1", lease_s=30) is not None
    clock.advance(31)  # w1 died: its lease lapses
    taken = store.claim("w3", lease_s=30)
    assert taken is not None and taken.id == first.id and taken.attempts == 2
    assert store.renew(first.id, "w1", lease_s=30) is None  # w1 has lost it
    done = RunCompleted(
        kind="synthesized", sources=2, evidence=3, fetches=2, input_tokens=10, output_tokens=5
    )
    assert not store.finish(first.id, "w1", "COMPLETED", message="late", ttl_s=60, completed=done)
    assert store.finish(first.id, "w3", "COMPLETED", message="done", ttl_s=60, completed=done)
    assert store.get(first.id).status == "COMPLETED"  # type: ignore[union-attr]
    # the terminal event the store writes is the run's, typed
    (terminal,) = [e.event for e in store.events_after(first.id, 0)]
    assert terminal.data == done and terminal.message == "done"


def _leased(store: JobStore, job_id: str, owner: str, clock: FakeClock) -> None:
    """``job_id`` running under ``owner``'s live lease, as a crash left it."""
    with store.engine.begin() as conn:
        conn.execute(
            update(research_jobs)
            .where(research_jobs.c.id == job_id)
            .values(
                status="RUNNING",
                lease_owner=owner,
                lease_expires_at=clock() + timedelta(seconds=30),
                attempts=1,
            )
        )


def test_a_restarted_worker_claims_its_earlier_lifes_jobs_first_and_at_once(
    store: JobStore, clock: FakeClock
) -> None:
    """Its earlier life's running job (whose lease still runs) comes before an older
    queued job; another slot's live lease is left alone, and so is a prefix that matches
    only as a LIKE pattern."""
    queued = submit(store, "queued").job
    clock.advance(1)
    mine = submit(store, "mine").job
    clock.advance(1)
    theirs = submit(store, "theirs").job
    clock.advance(1)
    lookalike = submit(store, "lookalike").job
    _leased(store, mine.id, "host_1:s0/111:aaaa", clock)
    _leased(store, theirs.id, "host_1:s1/222:bbbb", clock)
    _leased(store, lookalike.id, "hostX1:s0/444:dddd", clock)
    now, earlier = "host_1:s0/333:cccc", "host_1:s0/"
    assert store.has_claimable(now, earlier)
    first = store.claim(now, lease_s=30, earlier=earlier)
    assert first is not None and first.id == mine.id and first.attempts == 2
    assert first.lease_owner == now
    second = store.claim(now, lease_s=30, earlier=earlier)
    assert second is not None and second.id == queued.id
    assert store.claim(now, lease_s=30, earlier=earlier) is None  # live leases of others
    assert not store.has_claimable(now, earlier)
    # its own current jobs are not "an earlier life's"
    assert store.keep_leases([mine.id, theirs.id], now, 30) == {
        mine.id: (True, False),
        theirs.id: (False, False),
    }


def test_release_requeues_and_cancel_of_a_queued_job_is_immediate(store: JobStore) -> None:
    job = submit(store).job
    store.claim("w1", lease_s=30)
    store.release(job.id, "w1")
    assert store.get(job.id).status == "QUEUED"  # type: ignore[union-attr]
    cancelled = store.request_cancel(job.id, "alice")
    assert cancelled is not None and cancelled.status == "CANCELLED"
    assert [e.event.type for e in store.events_after(job.id, 0)] == ["run_cancelled"]
    assert store.request_cancel(job.id, "bob") is None  # not bob's


def test_a_cancel_and_a_claim_racing_never_run_a_cancelled_job(
    store: JobStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cancel reads the job QUEUED; a worker claims it before the cancel writes. On
    PostgreSQL the cancel wrote CANCELLED over the claim without looking again, and the
    worker's events were stored after the stream's terminal event (the soak's live
    streams missed them). The cancel's read now locks the job's row: the claim waits for
    it and finds nothing to run."""
    import threading

    from deepresearch.service.store import leases

    job = submit(store).job
    claimed: list[Any] = []
    read = leases.get_job

    def read_then_race(conn: Any, job_id: str, **kw: Any) -> Any:
        found = read(conn, job_id, **kw)
        if not claimed:
            claimer = threading.Thread(target=lambda: claimed.append(store.claim("w1", 30)))
            claimed.append(claimer)
            claimer.start()
            claimer.join(timeout=1.5)  # a claim the row lock holds back waits this long
        return found

    monkeypatch.setattr(leases, "get_job", read_then_race)
    cancelled = store.request_cancel(job.id, "alice")
    claimed[0].join(timeout=30)
    assert claimed[1:] == [None]  # nothing left to claim once the cancel is in
    assert cancelled is not None and cancelled.status == "CANCELLED"
    assert [e.event.type for e in store.events_after(job.id, 0)] == ["run_cancelled"]


def test_jobs_expire_after_their_time_to_live(store: JobStore, clock: FakeClock) -> None:
    job = submit(store).job
    store.claim("w1", lease_s=30)
    store.finish(job.id, "w1", "FAILED", message="failed", error="x", ttl_s=100)
    clock.advance(99)
    assert store.expire() == 0
    clock.advance(2)
    assert store.expire() == 1
    assert store.get(job.id).status == "EXPIRED"  # type: ignore[union-attr]


def test_events_get_consecutive_sequence_numbers_and_fold_into_the_job(
    store: JobStore, clock: FakeClock
) -> None:
    job = submit(store).job

    def event(data: Payload, stage: str | None = None) -> RunEvent:
        return RunEvent(run_id=job.id, ts=clock(), type=data.event_type, stage=stage, data=data)

    call = ModelCalled(
        role="planner",
        model="m",
        input_tokens=100,
        output_tokens=10,
        latency_s=0.5,
        ok=True,
        attempts=1,
        usage_source="reported",
    )
    added = EvidenceAdded(
        sub_question="q1", wave=1, count=3, sources=2, done=1, units=2, max_waves=3
    )
    seqs = [
        store.append_event(job.id, event(StageStarted(), "plan")),
        store.append_event(job.id, event(call, "plan")),
        store.append_event(job.id, event(added, "research")),
    ]
    assert seqs == [1, 2, 3]
    after = store.events_after(job.id, 1)
    assert [item.seq for item in after] == [2, 3]
    stored = store.get(job.id)
    assert stored is not None
    assert stored.stage == "research" and stored.progress >= 0.15  # the real stage
    assert stored.usage == {"calls": 1, "input_tokens": 100, "output_tokens": 10}
    assert stored.counts == {"model_calls": 1, "evidence": 3}


def test_listing_is_newest_first_and_per_owner(store: JobStore, clock: FakeClock) -> None:
    ids = []
    for n in range(5):
        ids.append(submit(store, f"q{n}").job.id)
        clock.advance(1)
    submit(store, "bob's", owner="bob")
    page = store.list_jobs("alice", limit=3)
    assert [job.id for job in page] == ids[::-1][:3]
    rest = store.list_jobs("alice", limit=3, before=page[-1].created_at)
    assert [job.id for job in rest] == ids[::-1][3:]


def test_events_stored_before_the_typed_payloads_load_unchanged(
    store: JobStore, engine: Engine, clock: FakeClock
) -> None:
    """Rows as a version before typed events wrote them (a warning with no code, the
    already-complete run_completed with its kind only, a source_fetched that fits): read
    back, served as they were stored, and usable by a resumed run's sink."""
    job = submit(store).job
    rows = [
        (
            "source_fetched",
            {
                "url": "https://a/1",
                "title": "A",
                "domain": "a",
                "kind": "html",
                "chars": 5,
                "from_provider": False,
            },
        ),
        ("warning", {"query": "tide mills"}),
        ("warning", {}),
        ("run_completed", {"kind": "synthesized"}),
    ]
    with engine.begin() as conn:
        conn.execute(
            insert(job_events),
            [
                {
                    "job_id": job.id,
                    "seq": i,
                    "ts": clock(),
                    "type": kind,
                    "stage": None,
                    "message": "",
                    "data": data,
                }
                for i, (kind, data) in enumerate(rows, start=1)
            ],
        )
    loaded = [item.event for item in store.events_after(job.id, 0)]
    assert [json.loads(e.model_dump_json())["data"] for e in loaded] == [d for _, d in rows]
    assert isinstance(loaded[0].data, SourceFetched)
    assert all(isinstance(e.data, StoredData) for e in loaded[1:])
    # a resumed attempt does not announce the page again; its other events pass
    received: list[RunEvent] = []
    sink = once_per_fact(received.append, loaded)
    sink(loaded[0])
    sink(RunEvent(run_id=job.id, ts=clock(), type="stage_started", data=StageStarted()))
    assert [e.type for e in received] == ["stage_started"]
    # and the job's events go on after them
    seq = store.append_event(
        job.id, RunEvent(run_id=job.id, ts=clock(), type="stage_started", data=StageStarted())
    )
    assert seq == len(rows) + 1


def test_retention_forgets_only_jobs_that_ended_before_the_cut_off(
    store: JobStore, clock: FakeClock
) -> None:
    done = RunCompleted(
        kind="synthesized", sources=1, evidence=1, fetches=1, input_tokens=1, output_tokens=1
    )
    old = submit(store, "old").job
    store.claim("w1", lease_s=30)
    store.append_event(
        old.id, RunEvent(run_id=old.id, ts=clock(), type="stage_started", data=StageStarted())
    )
    store.finish(old.id, "w1", "COMPLETED", message="done", ttl_s=60, completed=done)
    clock.advance(10 * 86_400)
    recent = submit(store, "recent").job
    store.claim("w1", lease_s=30)
    store.finish(recent.id, "w1", "FAILED", message="failed", error="x", ttl_s=60)
    running = submit(store, "running").job
    store.claim("w1", lease_s=30)
    queued = submit(store, "queued").job
    clock.advance(86_400)
    cut = clock() - timedelta(days=5)
    ids, events = store.forgettable(cut)
    assert ids == [old.id] and events == 2  # its stage_started and run_completed
    assert store.forget(ids) == 1
    assert store.get(old.id) is None and store.events_after(old.id, 0) == []
    for kept in (recent, running, queued):
        assert store.get(kept.id) is not None
    # a cut-off past everything still leaves what has not ended
    far = clock() + timedelta(days=1)
    ids, _ = store.forgettable(far)
    assert ids == [recent.id]
    assert store.forget([running.id, queued.id]) == 0  # checked again when deleting
