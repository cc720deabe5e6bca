"""Per-host politeness.

``HostGate`` limits one host to ``max_concurrent`` requests in flight and spaces request
starts to it at least ``min_interval_s`` apart. (How long to wait before a retry is
``deepresearch.resilience.retry``.)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


class HostGate:
    """Concurrency cap and minimum start interval for one host (one event loop)."""

    def __init__(self, *, max_concurrent: int, min_interval_s: float) -> None:
        self._slots = asyncio.Semaphore(max_concurrent)
        self._spacing = asyncio.Lock()
        self._min_interval_s = min_interval_s
        self._last_start: float | None = None

    @asynccontextmanager
    async def slot(self, clock: Clock, sleep: Sleep) -> AsyncIterator[None]:
        async with self._slots:
            if self._min_interval_s > 0:
                async with self._spacing:
                    if self._last_start is not None:
                        wait = self._last_start + self._min_interval_s - clock()
                        if wait > 0:
                            await sleep(wait)
                    self._last_start = clock()
            yield


class Politeness:
    """A ``HostGate`` per host, created on first use."""

    def __init__(self, *, max_concurrent: int, min_interval_s: float) -> None:
        if max_concurrent < 1 or min_interval_s < 0:
            raise ValueError("max_concurrent must be >= 1 and min_interval_s >= 0")
        self._max_concurrent = max_concurrent
        self._min_interval_s = min_interval_s
        self._gates: dict[str, HostGate] = {}

    def gate(self, host: str) -> HostGate:
        gate = self._gates.get(host)
        if gate is None:
            gate = HostGate(
                max_concurrent=self._max_concurrent, min_interval_s=self._min_interval_s
            )
            self._gates[host] = gate
        return gate
