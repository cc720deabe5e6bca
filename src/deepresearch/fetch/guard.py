"""The address policy: which URLs the fetcher may connect to, and to which IP addresses.

``AddressGuard.vet`` is the decision for one hop (the first URL or a redirect target):

* the scheme is ``http`` or ``https``, the port is 1-65535, the host is a plain DNS name
  (IDN already in ``xn--`` form) or an IP literal, with no escapes, controls or backslashes;
* the host is resolved **once** (through an injectable resolver; an IP literal needs no
  lookup) and **every** answer must be a global unicast address (``is_public_ip``). Names
  reserved for local networks (``localhost``, ``*.local``, ``*.internal`` ...) are refused
  before any lookup;
* a host listed in ``allow_hosts`` (``HOST`` or ``HOST:PORT``) skips the public-address
  check, and only on the listed port when one is given. It is still resolved once, and its
  answers must still be IP addresses.

The answer is a ``Target`` whose ``addresses`` are the only IPs the connection may use:
``deepresearch.fetch.transport`` pins the socket to them, so a DNS-rebinding host cannot
answer a public address here and a private one to the connect.

Messages of the errors raised here are safe to show: they never contain resolved
addresses. The details go to the ``deepresearch.fetch`` logger at DEBUG.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import httpx

from deepresearch.errors import FetchBlocked, FetchError

#: ``resolver(host, port)`` returns the IP addresses (as text) the host resolves to
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

LOG = logging.getLogger("deepresearch.fetch")

DEFAULT_PORTS = {"http": 80, "https": 443}
ALLOW_HINT = "add HOST or HOST:PORT to allow_hosts to permit it"
NOT_RESOLVED = "could not resolve the host name"

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
# special-use names that only mean something on a local network (RFC 6761, 6762, 8375)
_LOCAL_NAMES = (
    "localhost",
    "localdomain",
    "local",
    "internal",
    "home.arpa",
    "in-addr.arpa",
    "ip6.arpa",
)
# the authority of an absolute URL as typed: scheme "://" then up to the path
_RAW_AUTHORITY = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://([^/?#]*)")


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


def is_local_name(host: str) -> bool:
    """True for ``localhost`` and names under the special-use local suffixes."""
    return any(host == name or host.endswith("." + name) for name in _LOCAL_NAMES)


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


@dataclass(frozen=True)
class Target:
    """One vetted hop: where to send the request and the only addresses it may use."""

    url: httpx.URL
    #: the ASCII host name, lower case, without a trailing dot (SNI, Host, politeness)
    host: str
    port: int
    #: the vetted IP addresses, in the resolver's order, at least one
    addresses: tuple[str, ...]


class AddressGuard:
    """Applies the module's policy to a URL; one resolver lookup per ``vet`` call."""

    def __init__(self, allow_hosts: Sequence[str] = (), resolver: Resolver | None = None) -> None:
        self._allowed = parse_allow_hosts(allow_hosts)
        self._resolve = resolver or system_resolver

    def is_allowed(self, host: str, port: int) -> bool:
        return (host, None) in self._allowed or (host, port) in self._allowed

    async def vet(self, raw_url: str, *, redirected: bool = False) -> Target:
        """Parse ``raw_url`` and apply the policy; raise FetchBlocked or FetchError."""
        where = "redirect target" if redirected else "URL"
        url = _parse(raw_url, where)
        host = url.raw_host.decode("ascii", errors="replace").lower().rstrip(".")
        if not _HOST_CHARS.fullmatch(host):
            raise FetchBlocked(f"invalid {where}: bad host name")
        port = url.port if url.port is not None else DEFAULT_PORTS[url.scheme]
        if not 0 < port < 65_536:
            raise FetchBlocked(f"invalid {where}: bad port")
        allowed = self.is_allowed(host, port)
        if not allowed and is_local_name(host):
            raise FetchBlocked(
                f"refused {where}: the host name is reserved for local networks",
                hint=ALLOW_HINT,
            )
        addresses = await self._addresses(host, port)
        if not allowed and not all(is_public_ip(address) for address in addresses):
            LOG.debug("refused %s: %s resolves to %s", where, host, list(addresses))
            raise FetchBlocked(
                f"refused {where}: the host resolves to a non-public address", hint=ALLOW_HINT
            )
        return Target(url=url, host=host, port=port, addresses=_pinnable(addresses, where))

    async def _addresses(self, host: str, port: int) -> Sequence[str]:
        """The literal itself, or the resolver's answer (exactly one lookup)."""
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            pass
        try:
            addresses = list(await self._resolve(host, port))
        except (OSError, UnicodeError) as error:
            LOG.debug("resolving %s failed: %r", host, error)
            raise FetchError(NOT_RESOLVED) from None
        if not addresses:
            LOG.debug("resolving %s gave no addresses", host)
            raise FetchError(NOT_RESOLVED)
        return addresses


def _parse(raw_url: str, where: str) -> httpx.URL:
    authority = _RAW_AUTHORITY.match(raw_url)
    if authority is not None and "\\" in authority.group(1):
        raise FetchBlocked(f"invalid {where}")
    try:
        url = httpx.URL(raw_url)
    except (httpx.InvalidURL, ValueError, TypeError):
        raise FetchBlocked(f"invalid {where}") from None
    if url.scheme not in DEFAULT_PORTS:
        raise FetchBlocked(f"refused {where}: only http and https URLs can be fetched")
    if b"\\" in url.userinfo or b"%5c" in url.userinfo.lower():
        raise FetchBlocked(f"invalid {where}")
    return url


def _pinnable(addresses: Sequence[str], where: str) -> tuple[str, ...]:
    """The answers as normalised IP text, duplicates dropped; anything else is refused."""
    pinned: list[str] = []
    for address in addresses:
        try:
            text = str(ipaddress.ip_address(address.split("%", 1)[0]))
        except ValueError:
            LOG.debug("refused %s: a resolver answer is not an IP address: %r", where, address)
            raise FetchBlocked(
                f"refused {where}: the host resolves to a non-public address", hint=ALLOW_HINT
            ) from None
        if text not in pinned:
            pinned.append(text)
    return tuple(pinned)
