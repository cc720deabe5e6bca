"""robots.txt, per-host politeness, retries and the circuit breaker, against loopback
servers that fail on cue. Waits go through an injected clock and sleep: no wall-clock
assertions."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.http_fetcher import SHARED_BREAKERS, HttpFetcher, reset_shared_breakers
from deepresearch.fetch.robots import product_token
from deepresearch.resilience import (
    BreakerRegistry,
    BreakerState,
    CircuitBreaker,
    backoff_delay,
    parse_retry_after,
)

PAGE = b"<html><body><p>ok</p></body></html>"


@dataclass
class _State:
    robots: tuple[int, bytes] = (404, b"not found")
    plan: list[tuple[int, dict[str, str]]] = field(default_factory=list)  # for /flaky
    hits: dict[str, int] = field(default_factory=dict)
    active: int = 0
    peak: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: _State) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state

    def handle_error(self, request: object, client_address: object) -> None:
        pass


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        state = self.server.state
        path = urlsplit(self.path).path
        with state.lock:
            state.hits[path] = state.hits.get(path, 0) + 1
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            if path == "/robots.txt":
                self._send(*state.robots)
            elif path == "/flaky":
                with state.lock:
                    status, headers = state.plan.pop(0) if state.plan else (200, {})
                self._send(status, PAGE, headers)
            elif path == "/fail":
                self._send(503, b"down")
            elif path == "/go":
                self._send(302, b"", {"Location": "/private/target"})
            elif path == "/missing":
                self._send(404, b"missing")
            elif path == "/busy":
                with state.lock:
                    state.active += 1
                    state.peak = max(state.peak, state.active)
                time.sleep(0.05)
                with state.lock:
                    state.active -= 1
                self._send(200, PAGE)
            else:
                self._send(200, PAGE)

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)


@dataclass
class Site:
    host: str
    state: _State

    def url(self, path: str) -> str:
        return f"http://{self.host}{path}"

    def hits(self, path: str) -> int:
        return self.state.hits.get(path, 0)


@pytest.fixture
def site() -> Iterator[Site]:
    state = _State()
    httpd = _Server(state)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield Site(f"127.0.0.1:{httpd.server_address[1]}", state)
    httpd.shutdown()
    httpd.server_close()


class FakeTime:
    """An injectable clock whose sleep records the delay and advances time."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def _fetcher(site: Site, fake: FakeTime, **kwargs: object) -> HttpFetcher:
    kwargs.setdefault("allow_hosts", [site.host])
    kwargs.setdefault("min_interval_s", 0.0)
    kwargs.setdefault("jitter", lambda: 1.0)
    return HttpFetcher(clock=fake.clock, sleep=fake.sleep, **kwargs)  # type: ignore[arg-type]


# --- robots.txt -----------------------------------------------------------------------


async def test_robots_disallow_is_respected_and_fetched_once(site: Site) -> None:
    site.state.robots = (200, b"User-agent: *\nDisallow: /private\n")
    async with _fetcher(site, FakeTime()) as fetcher:
        with pytest.raises(FetchBlocked, match=r"disallowed by the site's robots\.txt"):
            await fetcher.fetch(site.url("/private/report"))
        assert (await fetcher.fetch(site.url("/public/a"))).status == 200
        assert (await fetcher.fetch(site.url("/public/b"))).status == 200
    assert site.hits("/private/report") == 0
    assert site.hits("/robots.txt") == 1


async def test_robots_groups_match_our_product_token(site: Site) -> None:
    site.state.robots = (200, b"User-agent: deepresearch\nDisallow: /\n\nUser-agent: *\nAllow: /\n")
    async with _fetcher(site, FakeTime()) as fetcher:  # the default deepresearch/... agent
        with pytest.raises(FetchBlocked, match=r"robots\.txt"):
            await fetcher.fetch(site.url("/page"))
    async with _fetcher(site, FakeTime(), user_agent="otherbot/2.0 (+x)") as fetcher:
        assert (await fetcher.fetch(site.url("/page"))).status == 200


async def test_robots_is_checked_on_redirect_hops_too(site: Site) -> None:
    site.state.robots = (200, b"User-agent: *\nDisallow: /private\n")
    async with _fetcher(site, FakeTime()) as fetcher:
        with pytest.raises(FetchBlocked, match=r"robots\.txt"):
            await fetcher.fetch(site.url("/go"))  # allowed, but redirects to /private/...
    assert site.hits("/go") == 1
    assert site.hits("/private/target") == 0


@pytest.mark.parametrize("status", [404, 403, 410])
async def test_robots_4xx_allows_everything(site: Site, status: int) -> None:
    site.state.robots = (status, b"nope")
    async with _fetcher(site, FakeTime()) as fetcher:
        assert (await fetcher.fetch(site.url("/anything"))).content == PAGE


async def test_robots_5xx_disallows_for_a_while(site: Site) -> None:
    fake = FakeTime()
    site.state.robots = (503, b"busy")
    async with _fetcher(site, fake, robots_error_ttl_s=300.0) as fetcher:
        with pytest.raises(FetchBlocked, match=r"robots\.txt could not be fetched"):
            await fetcher.fetch(site.url("/page"))
        with pytest.raises(FetchBlocked):
            await fetcher.fetch(site.url("/page"))
        assert site.hits("/robots.txt") == 1  # the verdict is cached...
        assert site.hits("/page") == 0
        site.state.robots = (200, b"User-agent: *\nAllow: /\n")
        fake.now += 300.0  # ...until the TTL runs out
        assert (await fetcher.fetch(site.url("/page"))).status == 200
    assert site.hits("/robots.txt") == 2


async def test_robots_can_be_turned_off(site: Site) -> None:
    site.state.robots = (200, b"User-agent: *\nDisallow: /\n")
    async with _fetcher(site, FakeTime(), respect_robots=False) as fetcher:
        assert (await fetcher.fetch(site.url("/page"))).status == 200
    assert site.hits("/robots.txt") == 0


# --- retries --------------------------------------------------------------------------


async def test_retries_then_success_with_exponential_backoff(site: Site) -> None:
    fake = FakeTime()
    site.state.plan = [(500, {}), (502, {}), (429, {})]
    async with _fetcher(site, fake) as fetcher:
        page = await fetcher.fetch(site.url("/flaky"))
    assert page.status == 200
    assert site.hits("/flaky") == 4
    assert fake.sleeps == [0.5, 1.0, 2.0]


async def test_retries_exhausted_is_an_error(site: Site) -> None:
    fake = FakeTime()
    async with _fetcher(site, fake) as fetcher:
        with pytest.raises(FetchError, match="remote server returned HTTP 503") as info:
            await fetcher.fetch(site.url("/fail"))
    assert not isinstance(info.value, FetchBlocked)
    assert site.hits("/fail") == 5  # the first try and 4 retries
    assert fake.sleeps == [0.5, 1.0, 2.0, 4.0]


async def test_backoff_is_capped_and_jittered(site: Site) -> None:
    fake = FakeTime()
    async with _fetcher(site, fake, max_retries=6, jitter=lambda: 0.0) as fetcher:
        with pytest.raises(FetchError):
            await fetcher.fetch(site.url("/fail"))
    assert fake.sleeps == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]  # half of min(4, 0.5 * 2**n)


async def test_retry_after_is_honoured_and_capped(site: Site) -> None:
    fake = FakeTime()
    site.state.plan = [
        (429, {"Retry-After": "3"}),
        (503, {"Retry-After": "120"}),
        (503, {"Retry-After": "Thu, 01 Jan 1970 00:00:00 GMT"}),  # a date in the past
    ]
    async with _fetcher(site, fake, max_retry_after_s=10.0) as fetcher:
        assert (await fetcher.fetch(site.url("/flaky"))).status == 200
    assert fake.sleeps == [3.0, 10.0, 0.0]


async def test_client_errors_are_not_retried(site: Site) -> None:
    fake = FakeTime()
    async with _fetcher(site, fake) as fetcher:
        with pytest.raises(FetchError, match="HTTP 404"):
            await fetcher.fetch(site.url("/missing"))
    assert site.hits("/missing") == 1
    assert fake.sleeps == []


async def test_connection_errors_are_retried(site: Site) -> None:
    fake = FakeTime()
    async with _fetcher(site, fake, allow_hosts=["127.0.0.1"]) as fetcher:
        with pytest.raises(FetchError, match="network error while fetching URL"):
            await fetcher.fetch("http://127.0.0.1:1/")  # nothing listens on port 1
    assert fake.sleeps == [0.5, 1.0, 2.0, 4.0]


# --- circuit breaker ------------------------------------------------------------------


async def test_breaker_opens_fails_fast_half_opens_and_closes(site: Site) -> None:
    fake = FakeTime()
    async with _fetcher(site, fake, max_retries=0) as fetcher:
        for _ in range(5):
            with pytest.raises(FetchError, match="HTTP 503"):
                await fetcher.fetch(site.url("/fail"))
        assert site.hits("/fail") == 5

        with pytest.raises(FetchError, match=r"circuit open"):
            await fetcher.fetch(site.url("/page"))
        assert site.hits("/page") == 0

        # the registry is shared: another run's fetcher sees the same open circuit
        async with _fetcher(site, fake) as other:
            with pytest.raises(FetchError, match=r"host temporarily unavailable \(circuit open\)"):
                await other.fetch(site.url("/page"))

        fake.now += 59.0
        with pytest.raises(FetchError, match="circuit open"):
            await fetcher.fetch(site.url("/page"))
        fake.now += 1.0  # 60 s after opening: half-open, requests go through
        assert (await fetcher.fetch(site.url("/page"))).status == 200
        assert SHARED_BREAKERS.get(site.host).state(fake.now) is BreakerState.HALF_OPEN
        assert (await fetcher.fetch(site.url("/page"))).status == 200
        assert SHARED_BREAKERS.get(site.host).state(fake.now) is BreakerState.CLOSED

        for _ in range(4):  # closed again, with a fresh failure count
            with pytest.raises(FetchError, match="HTTP 503"):
                await fetcher.fetch(site.url("/fail"))
        assert (await fetcher.fetch(site.url("/page"))).status == 200


async def test_breaker_counts_fetches_after_their_retries(site: Site) -> None:
    fake = FakeTime()
    async with _fetcher(site, fake) as fetcher:
        with pytest.raises(FetchError, match="HTTP 503"):
            await fetcher.fetch(site.url("/fail"))
    assert site.hits("/fail") == 5
    breaker = SHARED_BREAKERS.get(site.host)
    assert breaker.state(fake.now) is BreakerState.CLOSED  # one failure, not five


async def test_half_open_failure_reopens(site: Site) -> None:
    fake = FakeTime()
    registry = BreakerRegistry(failure_threshold=2, reset_after_s=10.0)
    async with _fetcher(site, fake, max_retries=0, breakers=registry) as fetcher:
        for _ in range(2):
            with pytest.raises(FetchError, match="HTTP 503"):
                await fetcher.fetch(site.url("/fail"))
        fake.now += 10.0
        with pytest.raises(FetchError, match="HTTP 503"):  # the half-open probe fails
            await fetcher.fetch(site.url("/fail"))
        with pytest.raises(FetchError, match="circuit open"):
            await fetcher.fetch(site.url("/page"))
    assert SHARED_BREAKERS.get(site.host).state(fake.now) is BreakerState.CLOSED  # untouched


def test_circuit_breaker_unit() -> None:
    breaker = CircuitBreaker()
    for _ in range(4):
        breaker.record_failure(0.0)
    breaker.record_success(0.0)  # a success resets the consecutive count
    for _ in range(4):
        breaker.record_failure(1.0)
    assert breaker.allow(1.0)
    breaker.record_failure(1.0)
    assert not breaker.allow(60.9)
    assert breaker.state(61.0) is BreakerState.HALF_OPEN
    breaker.record_success(61.0)
    assert breaker.state(61.0) is BreakerState.HALF_OPEN
    breaker.record_success(61.0)
    assert breaker.state(61.0) is BreakerState.CLOSED
    with pytest.raises(ValueError):
        CircuitBreaker(failure_threshold=0)


def test_reset_shared_breakers() -> None:
    breaker = SHARED_BREAKERS.get("example.org:443")
    for _ in range(5):
        breaker.record_failure(0.0)
    assert not SHARED_BREAKERS.get("example.org:443").allow(0.0)
    reset_shared_breakers()
    assert SHARED_BREAKERS.get("example.org:443").allow(0.0)


# --- per-host politeness --------------------------------------------------------------


@pytest.mark.parametrize("cap", [1, 2])
async def test_per_host_concurrency_never_exceeds_the_cap(site: Site, cap: int) -> None:
    async with HttpFetcher(allow_hosts=[site.host], max_per_host=cap, min_interval_s=0) as f:
        pages = await asyncio.gather(*(f.fetch(site.url("/busy")) for _ in range(8)))
    assert all(page.status == 200 for page in pages)
    assert site.hits("/busy") == 8
    assert 1 <= site.state.peak <= cap


async def test_minimum_interval_between_request_starts(site: Site) -> None:
    fake = FakeTime()
    async with _fetcher(site, fake, min_interval_s=0.25, respect_robots=False) as fetcher:
        await fetcher.fetch(site.url("/a"))
        await fetcher.fetch(site.url("/b"))  # no time passed: waits the whole interval
        fake.now += 0.1
        await fetcher.fetch(site.url("/c"))  # 0.1 s passed: waits the rest
        fake.now += 1.0
        await fetcher.fetch(site.url("/d"))  # long enough ago: no wait
    assert fake.sleeps == pytest.approx([0.25, 0.15])


# --- pure helpers ---------------------------------------------------------------------


def test_backoff_delay() -> None:
    assert backoff_delay(0, base_s=0.5, cap_s=4.0, jitter=1.0) == 0.5
    assert backoff_delay(3, base_s=0.5, cap_s=4.0, jitter=1.0) == 4.0
    assert backoff_delay(9, base_s=0.5, cap_s=4.0, jitter=1.0) == 4.0
    assert backoff_delay(9, base_s=0.5, cap_s=4.0, jitter=0.0) == 2.0
    assert backoff_delay(1, base_s=0.5, cap_s=4.0, jitter=0.5) == 0.75


def test_parse_retry_after() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("7", now=now) == 7.0
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 01 Jan 2025 11:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("", now=now) is None
    assert parse_retry_after("soon", now=now) is None
    assert parse_retry_after("-5", now=now) is None


def test_product_token() -> None:
    assert product_token("deepresearch/0.1 (+https://example.org)") == "deepresearch"
    assert product_token("Mozilla/5.0 (X11)") == "Mozilla"
    assert product_token("") == "*"
