"""Per-host circuit breakers, shared by every fetcher in the process.

A breaker starts *closed*. After ``failure_threshold`` consecutive failures (each one a
whole fetch that failed after its retries: connection error, timeout, 429 or 5xx) it
*opens*: fetches to that host fail fast without traffic. Once ``reset_after_s`` have passed
it turns *half-open* and lets requests through; ``close_after`` successes close it again,
one more failure re-opens it for another ``reset_after_s``.

``SHARED_BREAKERS`` is a module-level registry keyed by ``host:port``, so concurrent runs
in one process (each with its own HttpFetcher) see the same state for a host. It is
thread-safe. Tests call ``reset_shared_breakers()`` to start from a clean slate, or give a
fetcher its own ``BreakerRegistry``. Time is passed in by the caller (``now``), so an
injected clock drives every transition.
"""

from __future__ import annotations

import threading
from enum import StrEnum

FAILURE_THRESHOLD = 5
RESET_AFTER_S = 60.0
CLOSE_AFTER = 2


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half-open"


class CircuitBreaker:
    """One breaker; every method takes the current time from the caller's clock."""

    def __init__(
        self,
        *,
        failure_threshold: int = FAILURE_THRESHOLD,
        reset_after_s: float = RESET_AFTER_S,
        close_after: int = CLOSE_AFTER,
    ) -> None:
        if failure_threshold < 1 or close_after < 1 or reset_after_s < 0:
            raise ValueError("failure_threshold and close_after must be >= 1, reset_after_s >= 0")
        self.failure_threshold = failure_threshold
        self.reset_after_s = reset_after_s
        self.close_after = close_after
        self._lock = threading.Lock()
        self._state = BreakerState.CLOSED
        self._failures = 0
        self._successes = 0
        self._opened_at = 0.0

    def state(self, now: float) -> BreakerState:
        with self._lock:
            return self._current(now)

    def allow(self, now: float) -> bool:
        """True when a request may go out (closed or half-open)."""
        with self._lock:
            return self._current(now) is not BreakerState.OPEN

    def record_success(self, now: float) -> None:
        with self._lock:
            state = self._current(now)
            self._failures = 0
            if state is BreakerState.HALF_OPEN:
                self._successes += 1
                if self._successes >= self.close_after:
                    self._state = BreakerState.CLOSED
                    self._successes = 0

    def record_failure(self, now: float) -> None:
        with self._lock:
            state = self._current(now)
            if state is BreakerState.HALF_OPEN:
                self._open(now)
                return
            self._failures += 1
            if self._failures >= self.failure_threshold:
                self._open(now)

    def _open(self, now: float) -> None:
        self._state = BreakerState.OPEN
        self._opened_at = now
        self._failures = 0
        self._successes = 0

    def _current(self, now: float) -> BreakerState:
        if self._state is BreakerState.OPEN and now - self._opened_at >= self.reset_after_s:
            self._state = BreakerState.HALF_OPEN
            self._successes = 0
        return self._state


class BreakerRegistry:
    """Breakers by key, created on first use with the registry's settings."""

    def __init__(
        self,
        *,
        failure_threshold: int = FAILURE_THRESHOLD,
        reset_after_s: float = RESET_AFTER_S,
        close_after: int = CLOSE_AFTER,
    ) -> None:
        self._settings = (failure_threshold, reset_after_s, close_after)
        self._lock = threading.Lock()
        self._breakers: dict[str, CircuitBreaker] = {}

    def get(self, key: str) -> CircuitBreaker:
        with self._lock:
            breaker = self._breakers.get(key)
            if breaker is None:
                threshold, reset_after, close_after = self._settings
                breaker = CircuitBreaker(
                    failure_threshold=threshold, reset_after_s=reset_after, close_after=close_after
                )
                self._breakers[key] = breaker
            return breaker

    def reset(self) -> None:
        """Forget every breaker (all hosts closed again)."""
        with self._lock:
            self._breakers.clear()


#: the process-wide registry HttpFetcher uses unless given another one
SHARED_BREAKERS = BreakerRegistry()


def reset_shared_breakers() -> None:
    """Close every shared breaker; for tests."""
    SHARED_BREAKERS.reset()
