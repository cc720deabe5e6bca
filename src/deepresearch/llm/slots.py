"""Slots per model endpoint: at most ``limit`` calls in flight, the rest wait here.

The slots of an endpoint are shared by every gateway running on the same event loop, so
the service's concurrent jobs (one loop, one gateway per run) together respect a local
server's one-request-at-a-time, not each run on its own. Each loop gets its own slots
(asyncio primitives belong to one loop), dropped with the loop.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from dataclasses import dataclass, field

from deepresearch.llm.endpoints import Endpoint


@dataclass
class Slots:
    """One endpoint's slots and who is waiting for them."""

    limit: int
    in_flight: int = 0
    waiting: int = 0
    _semaphore: asyncio.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        self._semaphore = asyncio.Semaphore(self.limit)

    @property
    def free(self) -> bool:
        """Whether a call would start at once (nobody in flight at the limit, nobody queued)."""
        return not self._semaphore.locked()

    async def acquire(self, wait_timeout_s: float) -> float:
        """Take a slot; the seconds waited for it. Raises TimeoutError after
        ``wait_timeout_s`` without one (the caller then falls back)."""
        started = time.monotonic()
        if self.free:
            await self._semaphore.acquire()  # does not yield: nobody can take it first
        else:
            self.waiting += 1
            try:
                await asyncio.wait_for(self._semaphore.acquire(), timeout=wait_timeout_s)
            finally:
                self.waiting -= 1
        self.in_flight += 1
        return time.monotonic() - started

    def release(self) -> None:
        self.in_flight -= 1
        self._semaphore.release()


_BY_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int], Slots]] = (
    weakref.WeakKeyDictionary()
)


def slots_for(endpoint: Endpoint) -> Slots:
    """The running loop's slots for ``endpoint`` (created on first use). Gateways that set
    different limits for one endpoint get separate slots, each with its own limit."""
    loop = asyncio.get_running_loop()
    table = _BY_LOOP.setdefault(loop, {})
    key = (endpoint.key, endpoint.limit)
    slots = table.get(key)
    if slots is None:
        slots = table[key] = Slots(endpoint.limit)
    return slots
