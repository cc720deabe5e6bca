"""The one circuit breaker: thresholds, cool-down, half-open probes, shared clocks."""

from __future__ import annotations

import pytest

from deepresearch.resilience import BreakerRegistry, BreakerState, CircuitBreaker


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_opens_after_the_threshold_in_a_row_and_a_success_resets_the_count() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=3, reset_after_s=30, clock=clock)
    breaker.record_failure()
    breaker.record_failure()
    breaker.record_success()
    breaker.record_failure()
    breaker.record_failure()
    assert breaker.state() is BreakerState.CLOSED
    breaker.record_failure()
    assert breaker.state() is BreakerState.OPEN and not breaker.allow()


def test_cool_down_then_half_open_probes_close_or_reopen() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=1, reset_after_s=30, close_after=2, clock=clock)
    breaker.record_failure()
    clock.now = 29.9
    assert not breaker.allow()
    clock.now = 30.0
    assert breaker.allow() and breaker.state() is BreakerState.HALF_OPEN
    breaker.record_success()
    breaker.record_failure()  # one failed probe: open for a whole new cool-down
    clock.now = 59.9
    assert not breaker.allow()
    clock.now = 60.0
    breaker.record_success()
    assert breaker.state() is BreakerState.HALF_OPEN
    breaker.record_success()
    assert breaker.state() is BreakerState.CLOSED
    breaker.record_failure()  # closed again with a fresh count (threshold 1)
    assert breaker.state() is BreakerState.OPEN


def test_results_arriving_while_open_change_nothing() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=1, reset_after_s=10, close_after=1, clock=clock)
    breaker.record_failure()
    clock.now = 9.0
    breaker.record_failure()  # a straggler does not extend the cool-down
    breaker.record_success()  # nor does a late success close it
    assert breaker.state() is BreakerState.OPEN
    clock.now = 10.0
    assert breaker.state() is BreakerState.HALF_OPEN


def test_a_caller_time_overrides_the_clock() -> None:
    breaker = CircuitBreaker(failure_threshold=1, reset_after_s=60, clock=lambda: 1e9)
    breaker.record_failure(100.0)
    assert not breaker.allow(159.0)
    assert breaker.allow(160.0)
    assert breaker.allow()  # by its own clock the cool-down is long over


@pytest.mark.parametrize(
    "settings",
    [
        {"failure_threshold": 0},
        {"close_after": 0},
        {"reset_after_s": -1.0},
        {"reset_after_s": float("nan")},
    ],
)
def test_rejects_bad_settings(settings: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        CircuitBreaker(**settings)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        BreakerRegistry(**settings)  # type: ignore[arg-type]


def test_registry_keeps_one_breaker_per_key_until_reset() -> None:
    clock = Clock()
    registry = BreakerRegistry(failure_threshold=2, reset_after_s=5, clock=clock)
    assert registry.get("a.example:443") is registry.get("a.example:443")
    for _ in range(2):
        registry.get("a.example:443").record_failure()
    assert not registry.get("a.example:443").allow()
    assert registry.get("b.example:443").allow()
    clock.now = 5.0  # the registry's clock drives its breakers
    assert registry.get("a.example:443").state() is BreakerState.HALF_OPEN
    registry.reset()
    assert registry.get("a.example:443").state() is BreakerState.CLOSED
