"""The real fetcher: http(s) only, public addresses only, redirects re-checked, bounded.

Policy, applied to the first URL and again to every redirect hop:

* the scheme is ``http`` or ``https``;
* the host resolves (through an injectable resolver) only to global unicast addresses.
  Loopback, private, link-local, CGNAT, multicast, reserved, unspecified and documentation
  ranges are refused, including IPv4 hidden in IPv4-mapped, IPv4-compatible, NAT64 and
  6to4 IPv6 addresses, and so are local-only names (``localhost``, ``*.internal`` ...).
  A host listed in ``allow_hosts`` (``HOST`` or ``HOST:PORT``) skips this check, and only
  on the listed port when one is given (``deepresearch.fetch.guard``);
* at most ``max_redirects`` redirects are followed;
* the body is read as a stream and decompressed here (gzip / deflate / br, stacked codings
  too; ``deepresearch.fetch.decoding``), counting decoded bytes, and the fetch stops once it
  passes ``max_bytes``; a ``Content-Length`` above ``max_bytes`` is refused up front;
* the whole fetch (resolving, connecting, every hop, the body) runs under one deadline;
  each retry gets a fresh deadline, the waits between retries are outside it.

Politeness and resilience (defaults from seed 001):

* robots.txt is fetched once per origin (``scheme://host:port``) through this same guarded
  path and respected for the fetcher's product token, for the first URL and every redirect
  hop (see ``deepresearch.fetch.robots`` for the 4xx / 5xx rules); ``respect_robots=False``
  turns it off;
* at most ``max_per_host`` requests in flight per host and request starts to one host at
  least ``min_interval_s`` apart, shared by everything using this fetcher instance;
* connection errors, 429 and 5xx are retried up to ``max_retries`` times with exponential
  backoff (``backoff_base_s`` doubling, capped at ``backoff_cap_s``, equal jitter), or after
  ``Retry-After`` (seconds or an HTTP date, capped at ``max_retry_after_s``) when given.
  Timeouts are not retried: the deadline is the caller's budget for one fetch;
* a circuit breaker per ``host:port`` (``deepresearch.resilience``; ``SHARED_BREAKERS`` is
  shared by the whole process) counts fetches that failed after their retries (and timeouts); while it is open
  fetches to that host fail fast with "host temporarily unavailable (circuit open)".

``admits(page)`` applies the same policy to a page fetched earlier (the page cache asks
before serving one): every hop re-vetted on a fresh lookup, nothing connected.

Connections are pinned (``deepresearch.fetch.transport``): each hop is resolved exactly
once, and the socket connects to one of the vetted addresses while the ``Host`` header and
the TLS SNI / certificate check keep the host name. No lookup happens at connect time, a
pooled connection is never reused for a different vetted address, and the fetcher's own
connection pool ignores proxy environment variables. Allowed hosts are pinned too.

Bodies (``deepresearch.fetch.sniff``): the declared content type must be HTML, XHTML,
plain text or PDF (a missing or generic ``application/octet-stream`` type is sniffed), and
the first decoded KiB must agree with it: binary data (image, archive, executable magic
bytes, NUL bytes) served as a page is refused. robots.txt is exempt from the type check.
``fetch_image(url, max_bytes=)`` fetches a report's figure under the same policy (the
same guard, pinning, robots.txt, politeness, retries and breakers) with the image rules
instead: PNG, JPEG, WebP or GIF by their first bytes, SVG and anything else refused, at
most ``max_bytes``.

Error messages are safe to show: they never contain resolved or internal addresses,
exception text or server bodies. The details are logged at DEBUG on ``deepresearch.fetch``
(the ``debug_log`` setting writes them to a file).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Literal

import httpcore
import httpx

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.base import FetchedPage
from deepresearch.fetch.decoding import ACCEPT_ENCODING, BodyDecoder
from deepresearch.fetch.guard import (
    DEFAULT_PORTS,
    LOG,
    AddressGuard,
    Resolver,
    Target,
    is_public_ip,
    parse_allow_hosts,
    system_resolver,
)
from deepresearch.fetch.politeness import Clock, Politeness, Sleep
from deepresearch.fetch.robots import (
    ROBOTS_ERROR_TTL_S,
    ROBOTS_MAX_BYTES,
    RobotsRules,
    product_token,
)
from deepresearch.fetch.sniff import (
    SNIFF_BYTES,
    check_declared,
    check_head,
    check_image_declared,
    check_image_head,
)
from deepresearch.fetch.transport import Pin, PinnedTransport, pinned_request
from deepresearch.resilience import (
    BreakerRegistry,
    CircuitBreaker,
    parse_retry_after,
    retry_delay,
)

__all__ = [
    "DEFAULT_USER_AGENT",
    "SHARED_BREAKERS",
    "HttpFetcher",
    "Resolver",
    "is_public_ip",
    "parse_allow_hosts",
    "reset_shared_breakers",
    "system_resolver",
]

DEFAULT_USER_AGENT = "deepresearch/0.1 (+https://github.com/deepresearch/deepresearch)"
_ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5"
_ACCEPT_IMAGE = "image/png,image/jpeg,image/webp,image/gif;q=0.9"
#: what a body is checked as: a page, a figure's image, or nothing (robots.txt)
Body = Literal["page", "image", "none"]
_CIRCUIT_OPEN = "host temporarily unavailable (circuit open)"
_NETWORK_ERROR = "network error while fetching URL"
_TIMED_OUT = "request timed out"

#: the per-``host:port`` circuit breakers every HttpFetcher in the process shares (unless
#: given its own registry), so concurrent runs see the same state for a host
SHARED_BREAKERS = BreakerRegistry()


def reset_shared_breakers() -> None:
    """Close every shared breaker; for tests."""
    SHARED_BREAKERS.reset()


class HttpFetcher:
    """Fetches one URL at a time under the policy in the module docstring.

    The fetcher owns its connection pool (a ``PinnedTransport``; no ``httpx`` client, so no
    environment proxies, cookies or automatic redirects), closed by ``aclose()`` or
    ``async with``. ``network_backend`` is for tests: it is where pinned connections
    really go (an ``httpcore`` backend that routes them to loopback servers).
    """

    def __init__(
        self,
        *,
        allow_hosts: Sequence[str] = (),
        timeout_s: float = 10.0,
        max_bytes: int = 5_000_000,
        user_agent: str = DEFAULT_USER_AGENT,
        max_redirects: int = 5,
        resolver: Resolver | None = None,
        respect_robots: bool = True,
        robots_error_ttl_s: float = ROBOTS_ERROR_TTL_S,
        max_per_host: int = 2,
        min_interval_s: float = 0.25,
        max_retries: int = 4,
        backoff_base_s: float = 0.5,
        backoff_cap_s: float = 4.0,
        max_retry_after_s: float = 30.0,
        breakers: BreakerRegistry | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        jitter: Callable[[], float] = random.random,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        if timeout_s <= 0 or max_bytes < 1 or max_redirects < 0:
            raise ValueError("timeout_s and max_bytes must be positive, max_redirects >= 0")
        if max_retries < 0 or backoff_base_s < 0 or backoff_cap_s < 0 or max_retry_after_s < 0:
            raise ValueError("retry settings must not be negative")
        self._guard = AddressGuard(allow_hosts, resolver)
        self._transport = PinnedTransport(network_backend)
        self._timeout_s = timeout_s
        self._max_bytes = max_bytes
        self._max_redirects = max_redirects
        self._headers = {
            "User-Agent": user_agent,
            "Accept": _ACCEPT,
            "Accept-Encoding": ACCEPT_ENCODING,
        }
        self._agent = product_token(user_agent)
        self._respect_robots = respect_robots
        self._robots_error_ttl_s = robots_error_ttl_s
        self._robots: dict[str, RobotsRules] = {}
        self._robots_locks: dict[str, asyncio.Lock] = {}
        self._politeness = Politeness(max_concurrent=max_per_host, min_interval_s=min_interval_s)
        self._max_retries = max_retries
        self._backoff_base_s = backoff_base_s
        self._backoff_cap_s = backoff_cap_s
        self._max_retry_after_s = max_retry_after_s
        self._breakers = SHARED_BREAKERS if breakers is None else breakers
        self._clock = clock
        self._sleep = sleep
        self._jitter = jitter

    async def __aenter__(self) -> HttpFetcher:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the fetcher's connections."""
        await self._transport.aclose()

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url``; raise FetchBlocked (policy) or FetchError (anything else)."""
        return await self._retrying(url, "page", None)

    async def fetch_image(self, url: str, *, max_bytes: int) -> FetchedPage:
        """Fetch the image at ``url`` (PNG, JPEG, WebP or GIF by its bytes, at most
        ``max_bytes``) under the same policy as a page; FetchBlocked for anything else."""
        return await self._retrying(url, "image", min(max_bytes, self._max_bytes))

    async def _retrying(self, url: str, body: Body, max_bytes: int | None) -> FetchedPage:
        breaker = self._breaker_for(url)
        retry = 0
        while True:
            if breaker is not None and not breaker.allow(self._clock()):
                raise FetchError(_CIRCUIT_OPEN)
            try:
                page = await self._attempt(url, body, max_bytes)
            except _Retryable as failure:
                if retry >= self._max_retries:
                    if breaker is not None:
                        breaker.record_failure(self._clock())
                    raise FetchError(failure.message) from None
                await self._sleep(self._retry_delay(retry, failure.retry_after))
                retry += 1
                continue
            except FetchBlocked:
                raise
            except _TimedOut:
                if breaker is not None:
                    breaker.record_failure(self._clock())
                raise FetchError(_TIMED_OUT) from None
            except FetchError:
                if breaker is not None:  # the host answered (4xx, an undecodable body)
                    breaker.record_success(self._clock())
                raise
            if breaker is not None:
                breaker.record_success(self._clock())
            return page

    def _breaker_for(self, url: str) -> CircuitBreaker | None:
        try:
            parsed = httpx.URL(url)
        except (httpx.InvalidURL, ValueError, TypeError):
            return None  # the guard refuses it
        if parsed.scheme not in DEFAULT_PORTS or not parsed.raw_host:
            return None
        host = parsed.raw_host.decode("ascii", errors="replace").lower().rstrip(".")
        return self._breakers.get(f"{host}:{parsed.port or DEFAULT_PORTS[parsed.scheme]}")

    def _retry_delay(self, retry: int, retry_after: float | None) -> float:
        return retry_delay(
            retry,
            retry_after,
            base_s=self._backoff_base_s,
            cap_s=self._backoff_cap_s,
            max_retry_after_s=self._max_retry_after_s,
            jitter=self._jitter(),
        )

    async def _attempt(self, url: str, body: Body, max_bytes: int | None) -> FetchedPage:
        """One try under the deadline; retryable failures come out as ``_Retryable``."""
        try:
            async with asyncio.timeout(self._timeout_s):
                return await self._fetch(url, max_bytes=max_bytes, body=body)
        except _StatusError as error:
            if error.status == 429 or error.status >= 500:
                raise _Retryable(error.message, error.retry_after) from None
            raise FetchError(error.message) from None
        except (TimeoutError, httpx.TimeoutException) as error:
            LOG.debug("fetching %s timed out: %r", url, error)
            raise _TimedOut(_TIMED_OUT) from None
        except httpx.InvalidURL as error:
            LOG.debug("fetching %s: invalid URL: %r", url, error)
            raise FetchBlocked("invalid URL") from None
        except httpx.TransportError as error:
            LOG.debug("fetching %s failed: %r", url, error)
            raise _Retryable(_NETWORK_ERROR, None) from None
        except httpx.HTTPError as error:
            LOG.debug("fetching %s failed: %r", url, error)
            raise FetchError(_NETWORK_ERROR) from None

    async def _fetch(
        self, url: str, *, max_bytes: int | None = None, robots: bool = True, body: Body = "page"
    ) -> FetchedPage:
        current = url
        hops: list[str] = []
        for hop in range(self._max_redirects + 1):
            hops.append(current)
            target = await self._guard.vet(current, redirected=hop > 0)
            if robots and self._respect_robots:
                await self._check_robots(target)
            async with self._politeness.gate(target.host).slot(self._clock, self._sleep):
                response = await self._send(target, body)
                try:
                    if response.is_redirect:
                        current = _redirect_target(target.url, response.headers["location"])
                        continue
                    if response.status_code >= 300:
                        raise _StatusError(
                            response.status_code,
                            parse_retry_after(response.headers.get("retry-after", "")),
                        )
                    limit = max_bytes or self._max_bytes
                    content = await _read_body(response, limit, body if robots else "none")
                finally:
                    await response.aclose()
            return FetchedPage(
                url=url,
                final_url=str(target.url),
                status=response.status_code,
                content_type=response.headers.get("content-type", ""),
                content=content,
                hops=tuple(hops),
                robots_checked=robots and self._respect_robots,
            )
        raise FetchBlocked(f"too many redirects (more than {self._max_redirects})")

    async def admits(self, page: FetchedPage) -> bool:
        """True when this fetcher would fetch ``page`` (say, from the page cache) now.

        Every hop of its redirect chain must pass this fetcher's guard: scheme, host name
        rules, ``allow_hosts``, and the address check on a fresh lookup through the
        resolver (a stored address is never trusted; nothing connects). The chain must be
        known and within ``max_redirects``, the body within ``max_bytes``, and when this
        fetcher respects robots.txt the page must have been fetched respecting it too, and
        not be disallowed by rules this fetcher already holds.
        """
        hops = page.hops or ((page.url,) if page.url == page.final_url else ())
        if not hops or hops[0] != page.url or hops[-1] != page.final_url:
            return False  # an unknown redirect chain cannot be judged
        if len(hops) > self._max_redirects + 1 or len(page.content) > self._max_bytes:
            return False
        if self._respect_robots and not page.robots_checked:
            return False
        for index, hop in enumerate(hops):
            try:
                target = await self._guard.vet(hop, redirected=index > 0)
            except FetchError:  # FetchBlocked too: the live fetch says why
                return False
            if self._respect_robots and not self._robots_permit(target):
                return False
        return True

    def _robots_permit(self, target: Target) -> bool:
        """False when robots.txt rules this fetcher holds (fresh) disallow ``target``."""
        rules = self._robots.get(f"{target.url.scheme}://{target.host}:{target.port}")
        if rules is None or not rules.fresh(self._clock()):
            return True  # honoured when the page was fetched; not fetched again for this
        return not rules.unreachable and rules.can_fetch(self._agent, str(target.url))

    async def _send(self, target: Target, body: Body = "page") -> httpx.Response:
        """GET ``target`` over a connection pinned to its vetted addresses."""
        pin = Pin(target.host, target.addresses)
        headers = self._headers if body != "image" else {**self._headers, "Accept": _ACCEPT_IMAGE}
        request = pinned_request(target.url, pin, headers=headers, timeout_s=self._timeout_s)
        response = await self._transport.handle_async_request(request)
        response.request = request
        return response

    async def _check_robots(self, target: Target) -> None:
        """Raise FetchBlocked unless the origin's robots.txt lets our product token in."""
        origin = f"{target.url.scheme}://{target.host}:{target.port}"
        lock = self._robots_locks.setdefault(origin, asyncio.Lock())
        async with lock:  # concurrent fetches to one origin load robots.txt once
            rules = self._robots.get(origin)
            if rules is None or not rules.fresh(self._clock()):
                rules = await self._load_robots(target.url)
                self._robots[origin] = rules
        if rules.unreachable:
            raise FetchBlocked(
                "disallowed: the site's robots.txt could not be fetched",
                hint="robots.txt answered a server error; it is retried later",
            )
        if not rules.can_fetch(self._agent, str(target.url)):
            raise FetchBlocked("disallowed by the site's robots.txt")

    async def _load_robots(self, url: httpx.URL) -> RobotsRules:
        robots_url = url.copy_with(
            raw_path=b"/robots.txt", fragment=None, username=None, password=None
        )
        try:
            page = await self._fetch(str(robots_url), max_bytes=ROBOTS_MAX_BYTES, robots=False)
        except _StatusError as error:
            if 400 <= error.status < 500:  # "unavailable": no rules
                return RobotsRules.allowing_all()
            return self._robots_unreachable()
        except FetchError:  # refused by policy (too big, redirected somewhere refused)
            return self._robots_unreachable()
        # connection errors and timeouts propagate: the page fetch fails (and is retried)
        # the same way, and nothing is cached
        return RobotsRules.from_text(page.content.decode("utf-8", errors="replace"))

    def _robots_unreachable(self) -> RobotsRules:
        return RobotsRules.disallowing_all(self._clock() + self._robots_error_ttl_s)


def _redirect_target(base: httpx.URL, location: str) -> str:
    try:
        return str(base.join(location))
    except (httpx.InvalidURL, ValueError, TypeError):
        raise FetchBlocked("invalid redirect target") from None


async def _read_body(response: httpx.Response, limit: int, kind: Body) -> bytes:
    """The decoded body, at most ``limit`` bytes; for a page or an image, only if the
    content type is allowed and the first bytes agree with it (``deepresearch.fetch.sniff``)."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_big(limit)
    content_type = response.headers.get("content-type", "")
    check = check_image_head if kind == "image" else check_head
    if kind != "none":
        (check_image_declared if kind == "image" else check_declared)(content_type)
    decoder = BodyDecoder(response.headers.get("content-encoding", ""))
    body = bytearray()
    sniffed = kind == "none"
    async for raw in response.aiter_raw():
        _append(body, decoder.feed(raw, limit - len(body)), decoder, limit)
        if not sniffed and len(body) >= SNIFF_BYTES:
            check(content_type, bytes(body[:SNIFF_BYTES]))
            sniffed = True
    _append(body, decoder.flush(limit - len(body)), decoder, limit)
    if not sniffed:
        check(content_type, bytes(body))
    return bytes(body)


def _append(body: bytearray, data: bytes, decoder: BodyDecoder, limit: int) -> None:
    if decoder.overflow or len(body) + len(data) > limit:
        raise _too_big(limit)
    body += data


def _too_big(limit: int) -> FetchBlocked:
    return FetchBlocked(f"page is larger than the limit of {limit} bytes")


class _StatusError(FetchError):
    """A non-redirect status >= 300, before it is judged retryable or final."""

    def __init__(self, status: int, retry_after: float | None) -> None:
        super().__init__(f"remote server returned HTTP {status}")
        self.status = status
        self.retry_after = retry_after


class _TimedOut(FetchError):
    """The attempt ran out of time (never leaves ``fetch``)."""


class _Retryable(Exception):
    """An attempt failed in a way worth retrying (connection error, 429, 5xx)."""

    def __init__(self, message: str, retry_after: float | None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
