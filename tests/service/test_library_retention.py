"""A job that retention forgets keeps its library entry (issue 25, docs/library.md "When a
job expires"): the library is what remembers, with its own copy of the report, quotes and
pages; removing from it is explicit (``DELETE /v1/library/runs/{id}``)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from deepresearch.compose.gc import collect
from deepresearch.service.db import make_engine
from deepresearch.service.store import JobStore
from deepresearch.testing.web import OfflineWeb

from .helpers import running_service, service_settings


def test_a_forgotten_job_stays_in_the_library(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        job_id = service.submit(questions[0]).json()["id"]
        assert service.wait_for(job_id, "COMPLETED", "FAILED")["status"] == "COMPLETED"
        kept = service.client.get(f"/v1/library/runs/{job_id}").json()
        store = JobStore(make_engine(database_url))
        try:
            later = datetime.now(UTC) + timedelta(days=settings.retain_jobs_days + 1)
            assert asyncio.run(collect(settings, jobs=store, now=later)).jobs_forgotten == 1
        finally:
            store.engine.dispose()
        assert service.client.get(f"/v1/research/{job_id}").status_code == 404
        assert service.client.get(f"/v1/library/runs/{job_id}").json() == kept
        assert service.client.delete(f"/v1/library/runs/{job_id}").status_code == 204
