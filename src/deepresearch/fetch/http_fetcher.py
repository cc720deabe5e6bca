"""The real fetcher: http(s) only, public addresses only, redirects re-checked, bounded.

Policy, applied to the first URL and again to every redirect hop:

* the scheme is ``http`` or ``https``;
* the host resolves (through an injectable resolver) only to global unicast addresses.
  Loopback, private, link-local, CGNAT, multicast, reserved, unspecified and documentation
  ranges are refused, including IPv4 hidden in IPv4-mapped, IPv4-compatible, NAT64 and
  6to4 IPv6 addresses. A host listed in ``allow_hosts`` (``HOST`` or ``HOST:PORT``) skips
  this check, and only on the listed port when one is given;
* at most ``max_redirects`` redirects are followed;
* the body is read as a stream and decompressed here (gzip / deflate, stacked codings too),
  counting decoded bytes, and the fetch stops once it passes ``max_bytes``;
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
* a circuit breaker per ``host:port`` (``deepresearch.fetch.breaker``, shared by the whole
  process) counts fetches that failed after their retries (and timeouts); while it is open
  fetches to that host fail fast with "host temporarily unavailable (circuit open)".

Known gap, closed by the hardening issue: the connection is not pinned to the vetted
address. httpx resolves the host again when it connects, so a DNS-rebinding host can answer
a public address to our check and a private one to the connect.

Error messages are safe to show: they never contain resolved or internal addresses.
"""

from __future__ import annotations

import asyncio
import ipaddress
import random
import re
import socket
import time
import zlib
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType
from typing import Protocol

import httpx

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.base import FetchedPage
from deepresearch.fetch.breaker import SHARED_BREAKERS, BreakerRegistry, CircuitBreaker
from deepresearch.fetch.politeness import (
    Clock,
    Politeness,
    Sleep,
    backoff_delay,
    parse_retry_after,
)
from deepresearch.fetch.robots import (
    ROBOTS_ERROR_TTL_S,
    ROBOTS_MAX_BYTES,
    RobotsRules,
    product_token,
)

#: ``resolver(host, port)`` returns the IP addresses (as text) the host resolves to
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

DEFAULT_USER_AGENT = "deepresearch/0.1 (+https://github.com/deepresearch/deepresearch)"
_ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5"
_ALLOW_HINT = "add HOST or HOST:PORT to allow_hosts to permit it"
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CIRCUIT_OPEN = "host temporarily unavailable (circuit open)"
_NETWORK_ERROR = "network error while fetching URL"

_BLOCKED_V4 = tuple(
    ipaddress.IPv4Network(net)
    for net in (
        "0.0.0.0/8",  # "this network", unspecified
        "10.0.0.0/8",
        "100.64.0.0/10",  # carrier-grade NAT
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local, cloud metadata
        "172.16.0.0/12",
        "192.0.0.0/24",  # IETF protocol assignments
        "192.0.2.0/24",  # TEST-NET-1
        "192.88.99.0/24",  # 6to4 relay anycast
        "192.168.0.0/16",
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # TEST-NET-2
        "203.0.113.0/24",  # TEST-NET-3
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, broadcast
    )
)
_BLOCKED_V6 = tuple(
    ipaddress.IPv6Network(net)
    for net in (
        "::/96",  # unspecified, loopback, deprecated IPv4-compatible
        "64:ff9b:1::/48",  # local-use NAT64
        "100::/64",  # discard-only
        "2001::/23",  # IETF protocol assignments, Teredo
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation
        "5f00::/16",  # segment routing
        "fc00::/7",  # unique local
        "fe80::/10",  # link-local
        "fec0::/10",  # deprecated site-local
        "ff00::/8",  # multicast
    )
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# a DNS name (IDN already in xn-- form) or an IP literal; no escapes, spaces or zone ids
_HOST_CHARS = re.compile(r"[a-z0-9_.-]+|[0-9a-f:.]+")


def is_public_ip(address: str) -> bool:
    """True when ``address`` is a global unicast IP we may connect to.

    Anything that does not parse as an IP address is not public. IPv6 forms that embed an
    IPv4 address (mapped, NAT64, 6to4) are judged by that IPv4 address.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public_ip(str(embedded))
        return ip.is_global and not any(ip in net for net in _BLOCKED_V6)
    return ip.is_global and not any(ip in net for net in _BLOCKED_V4)


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve with the event loop's ``getaddrinfo``. Non-IP answers (``AF_UNIX``) are
    passed on as text that will not parse, so the policy refuses them."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [
        str(info[4][0]) if info[0] in (socket.AF_INET, socket.AF_INET6) else "?" for info in infos
    ]


def parse_allow_hosts(entries: Sequence[str]) -> frozenset[tuple[str, int | None]]:
    """``["example.org", "127.0.0.1:8899", "[::1]:8080", "::1"]`` → {(host, port or None)}."""
    allowed: set[tuple[str, int | None]] = set()
    for raw in entries:
        entry = raw.strip().lower()
        if not entry:
            continue
        host, port = entry, None
        if entry.startswith("["):
            host, _, rest = entry[1:].partition("]")
            port = int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
        elif entry.count(":") == 1:
            name, _, digits = entry.partition(":")
            if not digits.isdigit():
                raise ValueError(f"invalid allow_hosts entry: {raw!r}")
            host, port = name, int(digits)
        if not host.isascii():  # URLs carry IDN hosts in their xn-- form
            host = host.encode("idna").decode("ascii")
        allowed.add((host.rstrip("."), port))
    return frozenset(allowed)


class HttpFetcher:
    """Fetches one URL at a time under the policy in the module docstring.

    Pass ``client`` to share a connection pool (its redirect setting is overridden per
    request); otherwise the fetcher owns one, closed by ``aclose()`` or ``async with``.
    """

    def __init__(
        self,
        client: httpx.AsyncClient | None = None,
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
    ) -> None:
        if timeout_s <= 0 or max_bytes < 1 or max_redirects < 0:
            raise ValueError("timeout_s and max_bytes must be positive, max_redirects >= 0")
        if max_retries < 0 or backoff_base_s < 0 or backoff_cap_s < 0 or max_retry_after_s < 0:
            raise ValueError("retry settings must not be negative")
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(
            follow_redirects=False, trust_env=False, timeout=httpx.Timeout(timeout_s)
        )
        self._allowed = parse_allow_hosts(allow_hosts)
        self._timeout_s = timeout_s
        self._max_bytes = max_bytes
        self._max_redirects = max_redirects
        self._resolve = resolver or system_resolver
        self._headers = {
            "User-Agent": user_agent,
            "Accept": _ACCEPT,
            "Accept-Encoding": "gzip, deflate",
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
        """Close the HTTP client if this fetcher created it."""
        if self._owns_client:
            await self._client.aclose()

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url``; raise FetchBlocked (policy) or FetchError (anything else)."""
        breaker = self._breaker_for(url)
        retry = 0
        while True:
            if breaker is not None and not breaker.allow(self._clock()):
                raise FetchError(_CIRCUIT_OPEN)
            try:
                page = await self._attempt(url)
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
                raise FetchError("request timed out") from None
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
            return None  # _vet refuses it
        if parsed.scheme not in _DEFAULT_PORTS or not parsed.raw_host:
            return None
        host = parsed.raw_host.decode("ascii", errors="replace").lower().rstrip(".")
        return self._breakers.get(f"{host}:{parsed.port or _DEFAULT_PORTS[parsed.scheme]}")

    def _retry_delay(self, retry: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self._max_retry_after_s)
        return backoff_delay(
            retry, base_s=self._backoff_base_s, cap_s=self._backoff_cap_s, jitter=self._jitter()
        )

    async def _attempt(self, url: str) -> FetchedPage:
        """One try under the deadline; retryable failures come out as ``_Retryable``."""
        try:
            async with asyncio.timeout(self._timeout_s):
                return await self._fetch(url)
        except _StatusError as error:
            if error.status == 429 or error.status >= 500:
                raise _Retryable(error.message, error.retry_after) from None
            raise FetchError(error.message) from None
        except (TimeoutError, httpx.TimeoutException):
            raise _TimedOut("request timed out") from None
        except httpx.InvalidURL:
            raise FetchBlocked("invalid URL") from None
        except httpx.TransportError:
            raise _Retryable(_NETWORK_ERROR, None) from None
        except httpx.HTTPError:
            raise FetchError(_NETWORK_ERROR) from None

    async def _fetch(
        self, url: str, *, max_bytes: int | None = None, robots: bool = True
    ) -> FetchedPage:
        current = url
        for hop in range(self._max_redirects + 1):
            target = await self._vet(current, redirected=hop > 0)
            if robots and self._respect_robots:
                await self._check_robots(target)
            gate = self._politeness.gate(target.raw_host.decode("ascii", errors="replace"))
            async with gate.slot(self._clock, self._sleep):
                request = self._client.build_request("GET", target, headers=self._headers)
                response = await self._client.send(request, stream=True, follow_redirects=False)
                try:
                    if response.is_redirect:
                        location = response.headers["location"]
                        current = str(target.join(location))
                        continue
                    if response.status_code >= 300:
                        raise _StatusError(
                            response.status_code,
                            parse_retry_after(response.headers.get("retry-after", "")),
                        )
                    content = await self._read_body(response, max_bytes or self._max_bytes)
                finally:
                    await response.aclose()
            return FetchedPage(
                url=url,
                final_url=str(target),
                status=response.status_code,
                content_type=response.headers.get("content-type", ""),
                content=content,
            )
        raise FetchBlocked(f"too many redirects (more than {self._max_redirects})")

    async def _check_robots(self, url: httpx.URL) -> None:
        """Raise FetchBlocked unless the origin's robots.txt lets our product token in."""
        host = url.raw_host.decode("ascii", errors="replace").lower()
        origin = f"{url.scheme}://{host}:{url.port or _DEFAULT_PORTS[url.scheme]}"
        lock = self._robots_locks.setdefault(origin, asyncio.Lock())
        async with lock:  # concurrent fetches to one origin load robots.txt once
            rules = self._robots.get(origin)
            if rules is None or not rules.fresh(self._clock()):
                rules = await self._load_robots(url)
                self._robots[origin] = rules
        if rules.unreachable:
            raise FetchBlocked(
                "disallowed: the site's robots.txt could not be fetched",
                hint="robots.txt answered a server error; it is retried later",
            )
        if not rules.can_fetch(self._agent, str(url)):
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

    async def _vet(self, raw_url: str, *, redirected: bool) -> httpx.URL:
        """Parse ``raw_url`` and apply the scheme and address policy to it."""
        where = "redirect target" if redirected else "URL"
        try:
            url = httpx.URL(raw_url)
        except (httpx.InvalidURL, ValueError, TypeError):
            raise FetchBlocked(f"invalid {where}") from None
        if url.scheme not in _DEFAULT_PORTS:
            raise FetchBlocked(f"refused {where}: only http and https URLs can be fetched")
        host = url.raw_host.decode("ascii", errors="replace").lower().rstrip(".")
        if not _HOST_CHARS.fullmatch(host):
            raise FetchBlocked(f"invalid {where}: bad host name")
        port = url.port or _DEFAULT_PORTS[url.scheme]
        if (host, None) in self._allowed or (host, port) in self._allowed:
            return url
        try:
            addresses = [str(ipaddress.ip_address(host))]  # an IP literal needs no lookup
        except ValueError:
            try:
                addresses = list(await self._resolve(host, port))
            except (OSError, UnicodeError):
                raise FetchError("could not resolve the host name") from None
        if not addresses:
            raise FetchError("could not resolve the host name")
        if not all(is_public_ip(address) for address in addresses):
            raise FetchBlocked(
                f"refused {where}: the host resolves to a non-public address", hint=_ALLOW_HINT
            )
        return url

    async def _read_body(self, response: httpx.Response, limit: int) -> bytes:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise self._too_big(limit)
        if response.is_stream_consumed:  # a mock transport's ready-made response
            if len(response.content) > limit:
                raise self._too_big(limit)
            return response.content
        decoder = _BodyDecoder(response.headers.get("content-encoding", ""))
        chunks: list[bytes] = []
        total = 0
        async for raw in response.aiter_raw():
            data = decoder.feed(raw, limit - total)
            total += len(data)
            if decoder.overflow or total > limit:
                raise self._too_big(limit)
            chunks.append(data)
        tail = decoder.flush(limit - total)
        if decoder.overflow or total + len(tail) > limit:
            raise self._too_big(limit)
        chunks.append(tail)
        return b"".join(chunks)

    def _too_big(self, limit: int) -> FetchBlocked:
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


class _Decompressor(Protocol):
    @property
    def unconsumed_tail(self) -> bytes: ...

    def decompress(self, data: bytes, max_length: int = ...) -> bytes: ...

    def flush(self, length: int = ...) -> bytes: ...


class _BodyDecoder:
    """Undo ``Content-Encoding`` (gzip, deflate, stacked) without ever producing much more
    than the room left under the limit from one input chunk, so a compression bomb cannot
    balloon memory. ``overflow`` turns True once the output would pass the limit."""

    def __init__(self, content_encoding: str) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        self._stages: list[_Decompressor] = []
        for coding in reversed(codings):  # the last coding applied is undone first
            if coding in ("gzip", "x-gzip"):
                self._stages.append(zlib.decompressobj(16 + zlib.MAX_WBITS))
            elif coding == "deflate":
                self._stages.append(_Deflate())
            elif coding != "identity":
                raise FetchError("the page uses an unsupported content encoding")
        self.overflow = False

    def feed(self, data: bytes, room: int) -> bytes:
        """Decode one raw chunk; ``room`` is how many more decoded bytes are allowed."""
        return self._run(data, max(room, 0), final=False)

    def flush(self, room: int) -> bytes:
        """Decode what the decompressors still hold at the end of the body."""
        return self._run(b"", max(room, 0), final=True)

    def _run(self, data: bytes, room: int, *, final: bool) -> bytes:
        try:
            for index, stage in enumerate(self._stages):
                # an inner (still compressed) stream can be slightly larger than its output
                last = index == len(self._stages) - 1
                cap = room + 1 if last else room + 1 + 65_536 + room // 100
                out = stage.decompress(data, cap) if data else b""
                if final:
                    out += stage.flush()
                if stage.unconsumed_tail or len(out) > cap:
                    self.overflow = True
                    return b""
                data = out
        except zlib.error:
            raise FetchError("the page's compressed body is corrupt") from None
        return data


class _Deflate:
    """``deflate`` is zlib-wrapped by the spec but raw in many servers: try both."""

    def __init__(self) -> None:
        self._inner = zlib.decompressobj()
        self._started = False
        self.unconsumed_tail = b""

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        if not self._started and data:
            self._started = True
            try:
                return self._run(data, max_length)
            except zlib.error:
                self._inner = zlib.decompressobj(-zlib.MAX_WBITS)
        return self._run(data, max_length)

    def flush(self, length: int = zlib.DEF_BUF_SIZE) -> bytes:
        return self._inner.flush(length)

    def _run(self, data: bytes, max_length: int) -> bytes:
        out = self._inner.decompress(data, max_length)
        self.unconsumed_tail = self._inner.unconsumed_tail
        return out
