"""A job's stage and progress follow the run (issue 13): the stage is the node the run is
in (research, gate, reflect, write, audit), not the last one that announced its start,
and progress moves through the research stage as its units finish."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.models import RunEvent
from deepresearch.service.db import make_engine
from deepresearch.service.jobs import RESEARCH_END, RUN_STAGES, STAGE_PROGRESS, research_progress
from deepresearch.service.store import JobStore, Limits
from deepresearch.testing.web import OfflineWeb

from ..event_schema import assert_events_match_schema
from .helpers import read_sse, running_service, service_settings


def test_research_progress_moves_through_its_band_wave_by_wave() -> None:
    start = STAGE_PROGRESS["research"]
    points = [research_progress(wave, done, 3, 3) for wave in (1, 2, 3) for done in range(0, 4)]
    assert points == sorted(points)
    assert points[0] == start and points[-1] == pytest.approx(RESEARCH_END)
    assert start < research_progress(1, 1, 3, 3) < research_progress(1, 3, 3, 3) < RESEARCH_END
    # the first wave is the biggest share: most runs stop after it
    assert research_progress(1, 3, 3, 3) - start > RESEARCH_END - research_progress(2, 3, 3, 3)
    assert research_progress(2, 1, 0, 2) == pytest.approx(RESEARCH_END)  # an empty wave is done
    assert research_progress(5, 1, 2, 3) <= RESEARCH_END  # a run past its bound stays inside


def test_stage_and_progress_follow_the_events_of_a_real_run(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url, max_waves=2)
    with running_service(settings) as service:
        job_id = service.submit(questions[0]).json()["id"]
        messages = read_sse(service.client, f"/v1/research/{job_id}/events")
        done = service.job(job_id)
    assert done["status"] == "COMPLETED" and done["stage"] == "done" and done["progress"] == 1.0
    events = [RunEvent.model_validate(m.json()) for m in messages if m.id is not None]
    # stored and served as the schema says, and typed again when read back
    seen = assert_events_match_schema(events)
    assert {"wave_started", "evidence_added", "gate_evaluated", "run_completed"} <= seen

    # the same events, one at a time, into a fresh job: what a client polling would see
    store = JobStore(make_engine(database_url))
    job = store.submit(
        owner="replay",
        question="q",
        recipe="research",
        options={},
        request_hash="h",
        idempotency_key=None,
        max_active_runs=1,
        limits=Limits(window_s=900, per_window=10, ttl_s=3600),
    ).job
    seen: list[tuple[str, str | None, float]] = []
    for event in events[:-1]:  # the terminal one is the worker's to store
        store.append_event(job.id, event)
        current = store.get(job.id)
        assert current is not None
        seen.append((event.type, current.stage, current.progress))
        if event.stage in RUN_STAGES:
            assert current.stage == event.stage, (event.type, event.stage, current.stage)
    store.engine.dispose()

    progress = [p for _, _, p in seen]
    assert progress == sorted(progress)  # never back
    stages = [stage for _, stage, _ in seen]
    assert {"research", "gate", "reflect", "write", "audit"} <= set(stages)
    # it moves while the research units finish: every unit that ends moves it on
    before = [STAGE_PROGRESS["research"], *progress]
    moved = [
        (previous, p)
        for (kind, stage, p), previous in zip(seen, before, strict=False)
        if kind == "evidence_added"
    ]
    assert moved and all(previous < p <= RESEARCH_END for previous, p in moved), moved
    assert all(stage == "research" for kind, stage, _ in seen if kind == "evidence_added")
