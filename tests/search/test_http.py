"""The shared request helper: retry timing, Retry-After, the circuit breaker, lenient
dates and safe labels."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from deepresearch.errors import ProviderError, ProviderUnavailable, RateLimited
from deepresearch.resilience import CircuitBreaker
from deepresearch.search.http import (
    RetryPolicy,
    Target,
    parse_published,
    safe_origin,
    send,
)

TARGET = Target(provider="demo", label="Demo")


async def get(
    client: httpx.AsyncClient, url: str, retry: RetryPolicy, **options: Any
) -> httpx.Response:
    """``send`` a GET to ``url`` for ``TARGET`` with a 2 s timeout."""
    return await send(client, "GET", url, target=TARGET, timeout_s=2, retry=retry, **options)


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def test_backoff_grows_is_capped_and_jittered() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=4.0)
    for attempt, ceiling in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (6, 4.0)]:
        delays = {policy.backoff(attempt) for _ in range(50)}
        assert all(ceiling / 2 <= delay <= ceiling for delay in delays)
        assert len(delays) > 1


async def test_retry_after_seconds_are_honoured_up_to_the_cap(provider_server, client) -> None:
    provider_server.respond(429, retry_after="3")
    provider_server.respond(503, retry_after="120")
    provider_server.respond(200, {"ok": True})
    sleeps = Sleeps()
    policy = RetryPolicy(max_retries=3, base_delay_s=0, max_delay_s=0, max_retry_after_s=10)
    response = await get(client, provider_server.base_url, policy, sleep=sleeps)
    assert response.json() == {"ok": True}
    assert sleeps.delays == [3.0, 10.0]


async def test_retry_after_http_date(provider_server, client) -> None:
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=5), usegmt=True)
    provider_server.respond(429, retry_after=soon)
    provider_server.respond(429, retry_after="not a date")
    provider_server.respond(200, {})
    sleeps = Sleeps()
    policy = RetryPolicy(max_retries=2, base_delay_s=0.2, max_delay_s=0.2)
    await get(client, provider_server.base_url, policy, sleep=sleeps)
    assert 3.0 < sleeps.delays[0] <= 5.0
    assert 0.1 <= sleeps.delays[1] <= 0.2


async def test_breaker_opens_and_fails_fast(provider_server, client, fast_retry) -> None:
    now = [0.0]
    breaker = CircuitBreaker(
        failure_threshold=2, reset_after_s=60, close_after=1, clock=lambda: now[0]
    )
    provider_server.always(503)

    async def call() -> httpx.Response:
        return await get(client, provider_server.base_url, fast_retry, breaker=breaker)

    for _ in range(2):
        with pytest.raises(ProviderUnavailable):
            await call()
    assert breaker.state() == "open"
    seen = len(provider_server.requests)
    with pytest.raises(ProviderUnavailable) as caught:
        await call()
    assert "paused" in caught.value.message
    assert len(provider_server.requests) == seen, "an open circuit sends nothing"

    now[0] = 61.0
    assert breaker.state() == "half_open"
    provider_server.always(200, {})
    await call()
    assert breaker.state() == "closed"


def test_breaker_reopens_on_a_half_open_failure() -> None:
    now = [0.0]
    breaker = CircuitBreaker(
        failure_threshold=1, reset_after_s=10, close_after=2, clock=lambda: now[0]
    )
    breaker.record_failure()
    assert not breaker.allow()
    now[0] = 11.0
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state() == "half_open"
    breaker.record_failure()
    assert breaker.state() == "open"
    now[0] = 22.0
    breaker.record_success()
    breaker.record_success()
    assert breaker.state() == "closed"


async def test_rate_limits_count_against_the_breaker(provider_server, client, fast_retry) -> None:
    breaker = CircuitBreaker(failure_threshold=1)
    provider_server.always(429)
    with pytest.raises(RateLimited):
        await get(client, provider_server.base_url, fast_retry, breaker=breaker)
    assert breaker.state() == "open"


async def test_not_an_http_url(client, fast_retry) -> None:
    with pytest.raises(ProviderError) as caught:
        await get(client, "ftp://127.0.0.1/x", fast_retry)
    assert "not a valid http(s) URL" in caught.value.message


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-03-04", datetime(2024, 3, 4, tzinfo=UTC)),
        ("2024-03-04T05:06:07Z", datetime(2024, 3, 4, 5, 6, 7, tzinfo=UTC)),
        (
            "2024-03-04T05:06:07.123+02:00",
            datetime(2024, 3, 4, 5, 6, 7, 123000, tzinfo=timezone(timedelta(hours=2))),
        ),
        ("2024-03-04 05:06:07", datetime(2024, 3, 4, 5, 6, 7, tzinfo=UTC)),
        ("Mon, 04 Mar 2024 10:00:00 GMT", datetime(2024, 3, 4, 10, tzinfo=UTC)),
        ("March 4, 2024", datetime(2024, 3, 4, tzinfo=UTC)),
        ("Mar 4, 2024", datetime(2024, 3, 4, tzinfo=UTC)),
        ("4 March 2024", datetime(2024, 3, 4, tzinfo=UTC)),
        ("3 days ago", None),
        ("", None),
        (None, None),
        (1709510400, None),
    ],
)
def test_parse_published(raw: object, expected: datetime | None) -> None:
    assert parse_published(raw) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8888/", "http://127.0.0.1:8888"),
        ("https://user:pw@search.example/searx/?token=abc#x", "https://search.example/searx"),
        ("http://[::1]:8080", "http://[::1]:8080"),
    ],
)
def test_safe_origin(url: str, expected: str) -> None:
    assert safe_origin(url) == expected
