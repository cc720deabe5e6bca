"""What GET of one job reads (``store.views``), on SQLite and PostgreSQL, in one
connection and without the run's checkpoints: a follow-up's place in its thread comes
from its ``followup_started`` event, or from its report when that event was lost, and a
thread lists only the caller's jobs. Databases from before the thread columns get them
filled from their stored events and reports."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import insert, select, update

from deepresearch.models import Report, RunEvent
from deepresearch.models.event_checks import FollowupStarted
from deepresearch.models.thread import FollowupInfo
from deepresearch.service.db import make_engine, migrate
from deepresearch.service.jobs import Outcome, request_hash
from deepresearch.service.store import JobStore
from deepresearch.service.tables import job_events, research_jobs, research_results

from .helpers import queue_job
from .test_store import clock, engine, store  # noqa: F401 (fixtures: a store on each backend)

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
THREADED = frozenset({"research"})


def started(job_id: str, root: str, turn: int, follows: str, shift: bool = False) -> RunEvent:
    data = FollowupStarted(
        root=root,
        follows=follows,
        turn=turn,
        topic_shift=shift,
        method="lexical",
        overlap=0.5,
        reason="shared words",
        reused_sources=0,
        reused_evidence=0,
        dropped_evidence=0,
    )
    return RunEvent(run_id=job_id, ts=NOW, type=data.event_type, stage="followup", data=data)


def completed(jobs: JobStore, *job_ids: str) -> None:
    with jobs.engine.begin() as conn:
        conn.execute(
            update(research_jobs).where(research_jobs.c.id.in_(job_ids)).values(status="COMPLETED")
        )


def turns(jobs: JobStore, job_id: str, owner: str = "alice") -> list[tuple[str, int, bool]]:
    parts = jobs.job_parts(job_id, owner, threaded=THREADED)
    assert parts is not None and parts.thread is not None
    return [(turn.run_id, turn.turn, turn.topic_shift) for turn in parts.thread]


def test_a_thread_is_its_owner_s_jobs_placed_by_their_followup_events(
    store: JobStore,  # noqa: F811
) -> None:
    root = queue_job(store, "first").job.id
    second = queue_job(store, "second").job.id
    third = queue_job(store, "third").job.id
    stranger = queue_job(store, "not alice's", owner="bob").job.id
    store.append_events(
        [
            (second, started(second, root, 2, root)),
            (third, started(third, root, 3, second, shift=True)),
            (stranger, started(stranger, root, 2, root)),
        ]
    )
    completed(store, root, second, third, stranger)

    expected = [(root, 1, False), (second, 2, False), (third, 3, True)]
    for job_id in (root, second, third):
        assert turns(store, job_id) == expected
    parts = store.job_parts(third, "alice", threaded=THREADED)
    assert parts is not None and parts.thread is not None
    assert [turn.follows for turn in parts.thread] == [None, root, second]
    assert [turn.question for turn in parts.thread] == ["first", "second", "third"]
    # another owner's job is not found, and their thread holds none of alice's
    assert store.job_parts(root, "bob", threaded=THREADED) is None
    assert turns(store, stranger, "bob") == [(stranger, 2, False)]
    # a recipe without threads, and a job that has not completed, list none
    assert store.job_parts(root, "alice").thread is None  # type: ignore[union-attr]
    queued = queue_job(store, "still queued").job.id
    assert store.job_parts(queued, "alice", threaded=THREADED).thread is None  # type: ignore[union-attr]


def test_a_report_places_a_followup_whose_event_was_lost(store: JobStore) -> None:  # noqa: F811
    root = queue_job(store, "first").job.id
    second = queue_job(store, "second").job.id
    info = FollowupInfo(root=root, follows=root, turn=2, topic_shift=True)
    report = Report(run_id=second, question="second", title="t", kind="extractive", followup=info)
    outcome = Outcome(
        kind="report",
        document=report.model_dump(mode="json"),
        markdown="",
        evidence=[],
        report=report,
    )
    store.save_result(second, outcome)
    completed(store, root, second)
    assert turns(store, root) == [(root, 1, False), (second, 2, True)]


def test_an_older_database_gets_its_followups_placed_when_it_is_upgraded(
    database_url: str,
) -> None:
    db = make_engine(database_url)
    try:
        migrate(db, to="0005_watch_outbox")
        rows = [
            _job_row("run-aaaaaaaaaaaa", "first"),
            _job_row("run-bbbbbbbbbbbb", "by its event"),
            _job_row("run-cccccccccccc", "by its report"),
        ]
        event = started("run-bbbbbbbbbbbb", "run-aaaaaaaaaaaa", 2, "run-aaaaaaaaaaaa")
        info = FollowupInfo(
            root="run-aaaaaaaaaaaa", follows="run-bbbbbbbbbbbb", turn=3, topic_shift=True
        )
        with db.begin() as conn:
            for row in rows:
                conn.execute(insert(research_jobs).values(**row))
            conn.execute(
                insert(job_events).values(
                    job_id="run-bbbbbbbbbbbb",
                    seq=1,
                    ts=NOW,
                    type=event.type,
                    stage="followup",
                    message="",
                    data=event.data.model_dump(mode="json"),
                )
            )
            conn.execute(
                insert(research_results).values(
                    job_id="run-cccccccccccc",
                    kind="report",
                    report={"followup": info.model_dump(mode="json")},
                    markdown="",
                    created_at=NOW,
                )
            )
        migrate(db)
        with db.connect() as conn:
            placed = conn.execute(
                select(
                    research_jobs.c.id,
                    research_jobs.c.thread_root,
                    research_jobs.c.turn,
                    research_jobs.c.topic_shift,
                ).order_by(research_jobs.c.id)
            ).all()
        assert [tuple(row) for row in placed] == [
            ("run-aaaaaaaaaaaa", None, None, None),
            ("run-bbbbbbbbbbbb", "run-aaaaaaaaaaaa", 2, False),
            ("run-cccccccccccc", "run-aaaaaaaaaaaa", 3, True),
        ]
    finally:
        db.dispose()


def _job_row(job_id: str, question: str) -> dict[str, object]:
    return {
        "id": job_id,
        "owner": "alice",
        "status": "COMPLETED",
        "progress": 1.0,
        "question": question,
        "recipe": "research",
        "options": {},
        "request_hash": request_hash(question, "research", {}),
        "created_at": NOW,
        "updated_at": NOW,
        "attempts": 1,
        "cancel_requested": False,
        "counts": {},
        "usage": {},
    }
