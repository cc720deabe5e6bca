"""Follow-ups posted at the same moment on one thread, on SQLite and PostgreSQL: each
records its turn in the thread's root (a read of the root's turns, then a write of the
list with its own added), and none is lost, whatever the interleaving. The test forces the
worst one it can: a turn's write waits until every follow-up has read the list (or a
second has passed, when the store lets only one read at a time). Only the model's words
are scripted; the service, its workers and the checkpoint store run for real."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from langgraph.checkpoint.base import BaseCheckpointSaver

import deepresearch.checkpoints
import deepresearch.recipes.research.threads
from deepresearch.checkpoints import open_checkpointer
from deepresearch.errors import RunError
from deepresearch.models.thread import Turn
from deepresearch.settings import load_settings
from deepresearch.settings_groups import Storage
from deepresearch.testing.web import OfflineWeb

from .helpers import running_service, service_settings

FIRST = "Are Christopher Nolan and Sathish Kalathil both film directors?"
FOLLOWUPS = 8
WAIT_S = 1.0


class Rendezvous:
    """Lets a task through once ``parties`` tasks have arrived, or ``wait_s`` after it
    arrived itself (so that a store which lets one task at a time in still finishes).
    The tasks run on the service's event loop."""

    def __init__(self, parties: int, wait_s: float) -> None:
        self.parties = parties
        self.wait_s = wait_s
        self.arrived = 0
        self.everyone = asyncio.Event()

    async def meet(self) -> None:
        self.arrived += 1
        if self.arrived >= self.parties:
            self.everyone.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.everyone.wait(), self.wait_s)


def _write_after(rendezvous: Rendezvous) -> Callable[..., Any]:
    """``open_checkpointer`` for ``threads.py``, whose savers' first write of a state
    update (its channel writes, then the checkpoint) waits at the rendezvous: every turn
    being recorded has read the root's turns by then, unless the store keeps them apart."""

    @asynccontextmanager
    async def opened(
        settings: Storage, types: Sequence[tuple[str, str]]
    ) -> AsyncIterator[BaseCheckpointSaver[str]]:
        async with open_checkpointer(settings, types) as saver:
            put_writes = saver.aput_writes

            async def aput_writes(*args: Any, **kwargs: Any) -> None:
                await rendezvous.meet()
                await put_writes(*args, **kwargs)

            saver.aput_writes = aput_writes  # type: ignore[method-assign]
            yield saver

    return opened


def test_followups_posted_at_once_on_one_thread_all_join_its_turns(
    service_web: OfflineWeb, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendezvous = Rendezvous(FOLLOWUPS, WAIT_S)
    monkeypatch.setattr(
        deepresearch.recipes.research.threads, "open_checkpointer", _write_after(rendezvous)
    )
    settings = service_settings(
        service_web,
        tmp_path,
        database_url,
        max_concurrent_jobs=FOLLOWUPS,
        active_runs_per_key=FOLLOWUPS + 1,
        submissions_per_window=FOLLOWUPS + 1,
    )
    with running_service(settings) as service:
        first = service.submit(FIRST, options={"depth": "quick"}).json()["id"]
        service.wait_for(first, "COMPLETED")
        questions = [f"What else did Christopher Nolan direct ({n})?" for n in range(FOLLOWUPS)]
        start = threading.Barrier(FOLLOWUPS)

        def post(question: str) -> str:
            start.wait()
            response = service.client.post(
                f"/v1/research/{first}/followups", json={"question": question}
            )
            assert response.status_code == 201, response.text
            return str(response.json()["id"])

        with ThreadPoolExecutor(FOLLOWUPS) as posting:
            turns = list(posting.map(post, questions))
        assert len(set(turns)) == FOLLOWUPS
        for job_id in turns:
            service.wait_for(job_id, "COMPLETED", timeout=180)
        assert rendezvous.arrived == FOLLOWUPS  # each recorded its turn once

        for job_id in (first, *turns):
            thread = service.job(job_id)["thread"]
            assert thread[0]["id"] == first
            listed = {t["id"]: (t["turn"], t["question"]) for t in thread[1:]}
            assert listed == {
                job_id: (2, question) for job_id, question in zip(turns, questions, strict=True)
            }


async def test_a_turn_waits_for_the_sqlite_lock_then_says_the_store_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holding the SQLite checkpoints' lock past the wait: a clear error
    naming the lock file, not a hang and not a lost turn."""
    settings = load_settings(data_dir=tmp_path)
    monkeypatch.setattr(deepresearch.checkpoints, "STORE_LOCK_WAIT_S", 0.3)
    path = deepresearch.checkpoints.sqlite_checkpoint_path(settings)
    turn = Turn(run_id="run-000000000002", turn=2, question="q", follows="run-000000000001")
    held = FileLock(path.with_name(path.name + ".lock"))  # as another process would
    with held, pytest.raises(RunError) as caught:
        await deepresearch.recipes.research.threads.record_turn(settings, "run-000000000001", turn)
    assert "busy" in caught.value.message and "checkpoints.sqlite3.lock" in str(caught.value.hint)
