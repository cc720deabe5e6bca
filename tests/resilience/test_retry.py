"""Backoff, Retry-After and the delay that combines them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from deepresearch.resilience import backoff_delay, parse_retry_after, retry_delay

NOW = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("attempt", "jitter", "expected"),
    [(0, 1.0, 0.5), (0, 0.0, 0.25), (1, 0.5, 0.75), (3, 1.0, 4.0), (9, 0.0, 2.0), (-1, 1.0, 0.5)],
)
def test_backoff_is_exponential_capped_with_equal_jitter(
    attempt: int, jitter: float, expected: float
) -> None:
    assert backoff_delay(attempt, base_s=0.5, cap_s=4.0, jitter=jitter) == expected


def test_backoff_clamps_the_jitter() -> None:
    assert backoff_delay(0, base_s=1.0, cap_s=8.0, jitter=7.0) == 1.0
    assert backoff_delay(0, base_s=1.0, cap_s=8.0, jitter=-3.0) == 0.5


def test_backoff_does_not_overflow_on_a_huge_attempt() -> None:
    assert backoff_delay(10_000, base_s=0.5, cap_s=4.0, jitter=1.0) == 4.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("7", 7.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("1.5", 1.5),
        ("Wed, 01 Jan 2025 12:00:30 GMT", 30.0),
        ("Wed, 01 Jan 2025 12:00:30 -0000", 30.0),  # a zone-less date is UTC
        ("Wed, 01 Jan 2025 13:00:30 +0100", 30.0),
        ("Wed, 01 Jan 2025 11:00:00 GMT", 0.0),  # in the past: now
        ("", None),
        (None, None),
        ("soon", None),
        ("-5", None),
        ("+5", None),
        ("1e3", None),
        ("inf", None),
        ("nan", None),
        ("5 seconds", None),
        ("Wed, 32 Jan 2025 12:00:30 GMT", None),
        ("9" * 400, None),  # not finite as a float, and no cap to cut it to
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, now=NOW) == expected


def test_parse_retry_after_clamps_to_max() -> None:
    assert parse_retry_after("120", now=NOW, max_s=10.0) == 10.0
    assert parse_retry_after("9" * 400, now=NOW, max_s=10.0) == 10.0
    assert parse_retry_after("Thu, 01 Jan 2026 00:00:00 GMT", now=NOW, max_s=30.0) == 30.0
    assert parse_retry_after("3", now=NOW, max_s=10.0) == 3.0


def test_parse_retry_after_defaults_to_the_current_time() -> None:
    seconds = parse_retry_after("Thu, 01 Jan 1970 00:00:00 GMT")
    assert seconds == 0.0


def test_retry_delay_prefers_the_servers_wait_capped() -> None:
    timing = {"base_s": 0.5, "cap_s": 4.0, "max_retry_after_s": 10.0, "jitter": 1.0}
    assert retry_delay(0, 3.0, **timing) == 3.0
    assert retry_delay(0, 120.0, **timing) == 10.0
    assert retry_delay(0, 0.0, **timing) == 0.0
    assert retry_delay(2, None, **timing) == 2.0
