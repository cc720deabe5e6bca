"""An httpx transport that connects only to addresses the guard vetted (DNS pinning).

The fetcher attaches a ``Pin`` (host name + vetted IPs) to every request as the
``PIN_EXTENSION`` extension. ``PinnedTransport`` then sends the request to a synthetic
host name, ``<ip as hex>.<digest of the host name>.pin.invalid``, keeping the request's
``Host`` header, and sets the TLS SNI / certificate name to the real host name. Its
network backend, ``PinnedBackend``, decodes the IP from that synthetic name and connects
to it: no DNS lookup ever happens at connect time, and a host name that is not a pin
is refused, so a request without a pin cannot open a connection at all.

Because the synthetic name is the connection pool's key, a pooled connection is reused
only for the same vetted IP, port and host name: never across a different vetted
address, and never for another host name's TLS session.

If the first vetted address refuses the connection, the next one is tried (all vetted).
The fetcher sends requests straight to this transport, without an ``httpx.AsyncClient``:
no proxy or other environment settings (``HTTP(S)_PROXY``, ``ALL_PROXY``) are read, no
cookies are kept, and no redirect is built or followed below the fetcher's own checks.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import typing
from dataclasses import dataclass

import httpcore
import httpx

from deepresearch.fetch.tls import tls_context

LOG = logging.getLogger("deepresearch.fetch")

#: the request extension carrying the ``Pin``
PIN_EXTENSION = "deepresearch.pin"
_PIN_SUFFIX = ".pin.invalid"
_MAX_ADDRESSES = 4  # vetted addresses tried in turn when a connect fails


@dataclass(frozen=True)
class Pin:
    """The host name (for SNI and the certificate check) and its vetted addresses."""

    host: str
    addresses: tuple[str, ...]


def pin_host(address: str, host: str) -> str:
    """The synthetic connection host for ``address`` serving ``host``."""
    packed = ipaddress.ip_address(address).packed.hex()
    digest = hashlib.blake2s(host.encode("ascii", errors="replace"), digest_size=8).hexdigest()
    return f"{packed}.{digest}{_PIN_SUFFIX}"


def pinned_address(host: str) -> str | None:
    """The IP encoded in a synthetic pin host, or None when ``host`` is not one."""
    labels = host.split(".")
    if len(labels) != 4 or not host.endswith(_PIN_SUFFIX):
        return None
    try:
        packed = bytes.fromhex(labels[0])
    except ValueError:
        return None
    if len(packed) not in (4, 16):
        return None
    return str(ipaddress.ip_address(packed))


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects to the IP inside a pin host and refuses everything else.

    ``inner`` does the real I/O; tests pass one that routes connections to loopback.
    """

    def __init__(self, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = pinned_address(host)
        if address is None:
            raise httpcore.ConnectError("refused: the connection is not pinned")
        return await self._inner.connect_tcp(
            address,
            port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("refused: unix sockets are not used")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """``httpx.AsyncHTTPTransport`` whose connections go only to pinned addresses."""

    def __init__(
        self,
        backend: httpcore.AsyncNetworkBackend | None = None,
        *,
        limits: httpx.Limits | None = None,
    ) -> None:
        limits = limits or httpx.Limits(max_connections=100, max_keepalive_connections=20)
        ssl_context = tls_context()  # made once per process (fetch/tls.py)
        super().__init__(verify=ssl_context, limits=limits)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=PinnedBackend(backend),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        pin = request.extensions.get(PIN_EXTENSION)
        if not isinstance(pin, Pin) or not pin.addresses:
            raise httpx.ConnectError("refused: the request is not pinned", request=request)
        *others, last = pin.addresses[:_MAX_ADDRESSES]
        for address in others:
            try:
                return await super().handle_async_request(_pinned(request, pin, address))
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                LOG.debug("connecting to %s for %s failed: %r", address, pin.host, error)
        return await super().handle_async_request(_pinned(request, pin, last))


def _pinned(request: httpx.Request, pin: Pin, address: str) -> httpx.Request:
    """``request`` sent to the pin host for ``address``; Host header and SNI unchanged."""
    extensions = {k: v for k, v in request.extensions.items() if k != PIN_EXTENSION}
    if request.url.scheme == "https":
        extensions["sni_hostname"] = pin.host
    return httpx.Request(
        request.method,
        request.url.copy_with(host=pin_host(address, pin.host)),
        headers=request.headers,
        stream=request.stream,
        extensions=extensions,
    )


def pinned_request(
    url: httpx.URL, pin: Pin, *, headers: dict[str, str], timeout_s: float
) -> httpx.Request:
    """A GET of ``url`` carrying ``pin`` and per-phase timeouts, for ``PinnedTransport``."""
    return httpx.Request(
        "GET",
        url,
        headers=headers,
        extensions={PIN_EXTENSION: pin, "timeout": httpx.Timeout(timeout_s).as_dict()},
    )
