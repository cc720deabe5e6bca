"""Wakes the live event streams of a job when the worker in this process stores one of
its events. Streams also poll the database, so jobs run by another process are tailed too."""

from __future__ import annotations

import asyncio
import contextlib


class Notifier:
    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Event] = {}

    def publish(self, job_id: str) -> None:
        event = self._waiting.pop(job_id, None)
        if event is not None:
            event.set()

    async def wait(self, job_id: str, timeout_s: float) -> None:
        """Return when the job has news, or after ``timeout_s``."""
        event = self._waiting.setdefault(job_id, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout_s)
