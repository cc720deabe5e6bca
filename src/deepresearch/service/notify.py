"""Wakes the live event streams of a job when events of it are stored in this process.
Each job has a version that every publish increments: a stream notes the version before
it reads the database and waits only if nothing was published since, so a wake-up that
lands between its read and its wait is never missed. Streams also poll the database, so
jobs run by another process are tailed too: every second, or every ``HEARD_POLL_S``
while a PostgreSQL listener (``pg_listen.py``) brings other processes' news at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterable

#: jobs whose version is remembered (the oldest are forgotten; their streams just poll)
MAX_JOBS = 10_000
#: how often a quiet stream looks at the database
POLL_S = 1.0
#: ... while other processes' events are heard (a safety net: news comes without it)
HEARD_POLL_S = 5.0


class Notifier:
    def __init__(self) -> None:
        self._versions: OrderedDict[str, int] = OrderedDict()
        self._waiting: dict[str, asyncio.Event] = {}
        #: whether other processes' events are heard now (set by the composition root)
        self.hearing: Callable[[], bool] = lambda: False

    def poll_s(self) -> float:
        """How long a quiet stream may wait before it looks at the database itself."""
        return HEARD_POLL_S if self.hearing() else POLL_S

    def publish_all(self, job_ids: Iterable[str]) -> None:
        for job_id in job_ids:
            self.publish(job_id)

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
