"""Retention on the service's database, SQLite and PostgreSQL (``compose/gc.py``): a
finished job's run is compacted to its last checkpoint and its report, evaluation and a
follow-up still work; a job waiting for its plan review keeps every checkpoint and is
answered afterwards; a pass finds another one collecting and skips its turn; ended jobs
are forgotten only after ``retain_jobs_days``."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

from deepresearch.compose.gc import _one_at_a_time, collect
from deepresearch.service.db import make_engine
from deepresearch.service.store import JobStore
from deepresearch.settings import Settings
from deepresearch.testing.web import OfflineWeb

from .helpers import running_service, service_settings


def _checkpoints(settings: Settings, database_url: str) -> dict[str, int]:
    if settings.database_url and settings.database_url.startswith("postgresql"):
        engine = make_engine(database_url)
        try:
            with engine.connect() as conn:
                rows = conn.execute(
                    text("SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id")
                ).all()
        finally:
            engine.dispose()
        return {str(row[0]): int(row[1]) for row in rows}
    import sqlite3

    with sqlite3.connect(settings.data_dir / "checkpoints.sqlite3") as conn:
        found = conn.execute("SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id")
        return {str(thread): int(count) for thread, count in found.fetchall()}


def test_a_compacted_job_still_serves_and_a_waiting_one_is_untouched(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        done_id = service.submit(questions[0]).json()["id"]
        assert service.wait_for(done_id, "COMPLETED", "FAILED")["status"] == "COMPLETED"
        report = service.client.get(f"/v1/research/{done_id}/report").json()
        waiting_id = service.submit(questions[1], options={"review_plan": True}).json()["id"]
        service.wait_for(waiting_id, "AWAITING_INPUT", "COMPLETED", "FAILED")
        before = _checkpoints(settings, database_url)
        assert before[done_id] > 1 and before[waiting_id] > 1
        store = JobStore(make_engine(database_url))
        try:
            dry = asyncio.run(collect(settings, dry_run=True, jobs=store))
            assert (dry.runs_compacted, dry.checkpoints_dropped) == (1, before[done_id] - 1)
            assert dry.jobs_forgotten == 0  # it ended just now
            assert _checkpoints(settings, database_url) == before

            # two passes at once: one collects, the other skips its turn
            async def both() -> bool:
                async with _one_at_a_time(settings) as mine:
                    assert mine
                    return (await collect(settings, jobs=store)).skipped

            assert asyncio.run(both())
            asyncio.run(collect(settings, jobs=store))
            after = _checkpoints(settings, database_url)
            assert after[done_id] == 1 and after[waiting_id] == before[waiting_id]
            assert service.client.get(f"/v1/research/{done_id}/report").json() == report
            judged = service.client.post(f"/v1/research/{done_id}/eval")
            assert judged.status_code in (200, 201, 202), judged.text
            follow = service.client.post(
                f"/v1/research/{done_id}/followups", json={"question": questions[2]}
            )
            assert follow.status_code == 201, follow.text
            followed = service.wait_for(follow.json()["id"], "COMPLETED", "FAILED")
            assert followed["status"] == "COMPLETED", followed
            answered = service.client.post(
                f"/v1/research/{waiting_id}/input", json={"action": "approve"}
            )
            assert answered.status_code == 202, answered.text
            finished = service.wait_for(waiting_id, "COMPLETED", "FAILED")
            assert finished["status"] == "COMPLETED", finished
            # a policy cut-off past the jobs' end forgets them, and only them
            later = datetime.now(UTC) + timedelta(days=31)
            gone = asyncio.run(collect(settings, jobs=store, now=later))
            assert gone.jobs_forgotten == 3 and gone.events_dropped > 0
            assert service.client.get(f"/v1/research/{done_id}").status_code == 404
            # their checkpoints went with them
            forgotten = {done_id, waiting_id, follow.json()["id"]}
            assert not forgotten & set(_checkpoints(settings, database_url))
        finally:
            store.engine.dispose()
