"""Circuit breakers: fail fast while a service keeps failing (seed 001).

A breaker starts *closed*. ``failure_threshold`` failures in a row *open* it: ``allow()``
answers False for ``reset_after_s`` (the cool-down), so callers fail without sending
anything. Then it is *half-open*: calls go through as probes; ``close_after`` successes in
a row close it, and one failure opens it again for another cool-down. While closed, a
success resets the failure count. A result that arrives while the breaker is open (a call
let through before it opened) changes nothing: the cool-down runs from the opening.

What counts as a failure is the caller's decision (the search adapters: unreachable, 5xx
or 429 after retries; the fetcher: a whole fetch that failed after its retries).

Time comes from the breaker's ``clock`` unless a method is given ``now``: a breaker shared
by callers with their own clocks (the fetcher's per-host breakers are shared by every run
in the process, and each fetcher has an injectable clock) takes the caller's time.
Breakers and registries are thread-safe, so a registry may be shared across threads and
event loops.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from enum import StrEnum

Clock = Callable[[], float]

FAILURE_THRESHOLD = 5
RESET_AFTER_S = 60.0
CLOSE_AFTER = 2


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """One breaker. See the module docstring for the transitions."""

    def __init__(
        self,
        *,
        failure_threshold: int = FAILURE_THRESHOLD,
        reset_after_s: float = RESET_AFTER_S,
        close_after: int = CLOSE_AFTER,
        clock: Clock = time.monotonic,
    ) -> None:
        if failure_threshold < 1 or close_after < 1 or not reset_after_s >= 0:
            raise ValueError("failure_threshold and close_after must be >= 1, reset_after_s >= 0")
        self.failure_threshold = failure_threshold
        self.reset_after_s = reset_after_s
        self.close_after = close_after
        self._clock = clock
        self._lock = threading.Lock()
        self._state = BreakerState.CLOSED
        self._failures = 0
        self._successes = 0
        self._opened_at = 0.0

    def state(self, now: float | None = None) -> BreakerState:
        with self._lock:
            return self._current(now)

    def allow(self, now: float | None = None) -> bool:
        """True when a call may go out (closed or half-open)."""
        with self._lock:
            return self._current(now) is not BreakerState.OPEN

    def record_success(self, now: float | None = None) -> None:
        with self._lock:
            state = self._current(now)
            if state is BreakerState.CLOSED:
                self._failures = 0
            elif state is BreakerState.HALF_OPEN:
                self._successes += 1
                if self._successes >= self.close_after:
                    self._state = BreakerState.CLOSED
                    self._failures = self._successes = 0

    def record_failure(self, now: float | None = None) -> None:
        with self._lock:
            state = self._current(now)
            if state is BreakerState.HALF_OPEN:
                self._open(now)
            elif state is BreakerState.CLOSED:
                self._failures += 1
                if self._failures >= self.failure_threshold:
                    self._open(now)

    def _now(self, now: float | None) -> float:
        return self._clock() if now is None else now

    def _open(self, now: float | None) -> None:
        self._state = BreakerState.OPEN
        self._opened_at = self._now(now)
        self._failures = self._successes = 0

    def _current(self, now: float | None) -> BreakerState:
        if (
            self._state is BreakerState.OPEN
            and self._now(now) - self._opened_at >= self.reset_after_s
        ):
            self._state = BreakerState.HALF_OPEN
            self._successes = 0
        return self._state


class BreakerRegistry:
    """Breakers by key (a host, a provider), created on first use with these settings."""

    def __init__(
        self,
        *,
        failure_threshold: int = FAILURE_THRESHOLD,
        reset_after_s: float = RESET_AFTER_S,
        close_after: int = CLOSE_AFTER,
        clock: Clock = time.monotonic,
    ) -> None:
        CircuitBreaker(  # fail at construction, not at the first get()
            failure_threshold=failure_threshold,
            reset_after_s=reset_after_s,
            close_after=close_after,
        )
        self._settings = (failure_threshold, reset_after_s, close_after)
        self._clock = clock
        self._lock = threading.Lock()
        self._breakers: dict[str, CircuitBreaker] = {}

    def get(self, key: str) -> CircuitBreaker:
        with self._lock:
            breaker = self._breakers.get(key)
            if breaker is None:
                threshold, reset_after, close_after = self._settings
                breaker = CircuitBreaker(
                    failure_threshold=threshold,
                    reset_after_s=reset_after,
                    close_after=close_after,
                    clock=self._clock,
                )
                self._breakers[key] = breaker
            return breaker

    def reset(self) -> None:
        """Forget every breaker (every key closed again)."""
        with self._lock:
            self._breakers.clear()
