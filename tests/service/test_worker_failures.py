"""A job whose run failed in a way nobody planned for (issue 27): the job says "failed
unexpectedly (TypeName)" and the worker's log holds the whole traceback, secrets taken
out. The runner wraps such an exception in a ``RunError`` for the job's message, so the
worker logged nothing before and the soak's ``OperationalError`` failures had no cause
to read. The runner here is a stand-in that fails the way the real one wraps a failure;
the pool, the store and the database are real."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from deepresearch.errors import RunError
from deepresearch.models.pause import InputRequest
from deepresearch.service.db import make_engine, migrate
from deepresearch.service.jobs import Job, Outcome
from deepresearch.service.notify import Notifier
from deepresearch.service.store import JobStore
from deepresearch.service.worker import Resume, WorkerPool
from deepresearch.settings import load_settings
from deepresearch.settings_groups import ServiceSettings

from .helpers import queue_job

SECRET = "sk-live-0123456789abcdefghij"


def _a_stage_with_a_bug() -> None:
    raise KeyError(f"while writing with key {SECRET}")


class FailingRunner:
    async def run(self, job: Job, sink: object, resume: Resume | None) -> Outcome | InputRequest:
        try:  # as runner._stream wraps what a stage raised
            _a_stage_with_a_bug()
        except KeyError as exc:
            raise RunError("the run failed unexpectedly (KeyError)") from exc
        raise AssertionError("unreachable")

    def secrets(self) -> list[str]:
        return [SECRET]


async def test_an_unexpected_failure_is_logged_whole_without_secrets(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 's.db'}")
    migrate(engine)
    store = JobStore(engine)
    service = ServiceSettings.of(load_settings(data_dir=tmp_path / "data"))
    pool = WorkerPool(store, service, Notifier(), FailingRunner(), poll_s=0.05)
    job = queue_job(store).job
    caplog.set_level(logging.ERROR, logger="deepresearch.service.worker")
    await pool.start()
    try:
        for _ in range(400):
            found = store.get(job.id)
            if found is not None and found.status == "FAILED":
                break
            await asyncio.sleep(0.05)
    finally:
        await pool.stop()
        engine.dispose()
    assert found is not None and found.error == "the run failed unexpectedly (KeyError)"
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert f"job {job.id} failed unexpectedly" in logged
    assert "Traceback" in logged and "in _a_stage_with_a_bug" in logged
    assert "KeyError: 'while writing with key" in logged
    assert SECRET not in logged
