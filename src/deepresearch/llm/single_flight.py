"""One question in flight at a time per cache key.

Stages ask many questions at once (``asyncio.gather``), and some of them are the same
question: the audit judges a summary sentence and the identical sentence in the body. With
a response cache, whether the second one is asked again used to depend on which call came
back first, so two runs of the same research could count a different number of calls. A
``KeyedLocks`` makes the second ask wait for the first and then read its answer from the
cache: the same calls in every run, and one call fewer to pay for.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class KeyedLocks:
    """A lock per key, created on first use and dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        """How many keys are held or waited for (0 once every ask has finished)."""
        return len(self._locks)
