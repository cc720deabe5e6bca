"""Wakes the live event streams of a job when events of it are stored in this process.
Each job has a version that every publish increments: a stream notes the version before
it reads the database and waits only if nothing was published since, so a wake-up that
lands between its read and its wait is never missed. Streams also poll the database, so
jobs run by another process are tailed too."""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict

#: jobs whose version is remembered (the oldest are forgotten; their streams just poll)
MAX_JOBS = 10_000


class Notifier:
    def __init__(self) -> None:
        self._versions: OrderedDict[str, int] = OrderedDict()
        self._waiting: dict[str, asyncio.Event] = {}

    def version(self, job_id: str) -> int:
        return self._versions.get(job_id, 0)

    def publish(self, job_id: str) -> None:
        self._versions[job_id] = self._versions.get(job_id, 0) + 1
        self._versions.move_to_end(job_id)
        while len(self._versions) > MAX_JOBS:
            self._versions.popitem(last=False)
        event = self._waiting.pop(job_id, None)
        if event is not None:
            event.set()

    async def wait(self, job_id: str, seen: int, timeout_s: float) -> None:
        """Return when the job's version differs from ``seen``, or after ``timeout_s``."""
        if self.version(job_id) != seen:
            return
        event = self._waiting.setdefault(job_id, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout_s)
