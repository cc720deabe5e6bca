"""Connection pinning: one lookup per hop, the socket goes to the vetted address, the Host
header and TLS name stay the host name, pooled connections never cross addresses or host
names, and neither environment proxies nor unpinned requests get around it."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler

import httpcore
import httpx
import pytest

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.http_fetcher import HttpFetcher
from deepresearch.fetch.transport import (
    Pin,
    PinnedBackend,
    PinnedTransport,
    pin_host,
    pinned_address,
    pinned_request,
)

from .netstub import PAGE, LoopServer, RoutingBackend, StubResolver, canary, page, send

PUBLIC = "93.184.216.34"
OTHER_PUBLIC = "93.184.216.35"


def _fetcher(
    resolver: StubResolver, backend: RoutingBackend | None, **kwargs: object
) -> HttpFetcher:
    kwargs.setdefault("respect_robots", False)
    kwargs.setdefault("min_interval_s", 0)
    kwargs.setdefault("max_retries", 0)
    return HttpFetcher(resolver=resolver, network_backend=backend, **kwargs)  # type: ignore[arg-type]


def _answers(*sequence: Sequence[str]) -> object:
    """A rebinding resolver's answers: one item per lookup, the last one repeated."""
    remaining = list(sequence)

    def next_answer() -> Sequence[str]:
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]

    return next_answer


async def test_the_connection_goes_to_the_vetted_address_with_the_host_header() -> None:
    resolver = StubResolver({"example.org": [PUBLIC]})
    with LoopServer(page) as site:
        backend = RoutingBackend({PUBLIC: site.route})
        async with _fetcher(resolver, backend) as fetcher:
            fetched = await fetcher.fetch("http://example.org:8080/a?b=c")
    assert fetched.content == PAGE
    assert fetched.final_url == "http://example.org:8080/a?b=c"
    assert resolver.lookups == [("example.org", 8080)]
    assert backend.connects == [(PUBLIC, 8080)]
    assert site.requests == [("/a?b=c", "example.org:8080")]


async def test_a_rebinding_resolver_is_asked_once_per_hop() -> None:
    resolver = StubResolver({"rebind.example": _answers([PUBLIC], ["127.0.0.1"])})  # type: ignore[dict-item]
    with LoopServer(page) as site, canary() as bird:
        backend = RoutingBackend({PUBLIC: site.route}, default=bird.route)
        async with _fetcher(resolver, backend) as fetcher:
            assert (await fetcher.fetch("http://rebind.example/")).status == 200
    assert resolver.lookups == [("rebind.example", 80)]
    assert backend.connects == [(PUBLIC, 80)]
    assert bird.hits == 0


async def test_a_rebinding_host_redirecting_to_itself_is_checked_again() -> None:
    resolver = StubResolver({"rebind.example": _answers([PUBLIC], ["10.0.0.1"])})  # type: ignore[dict-item]

    def handle(handler: BaseHTTPRequestHandler) -> None:
        send(handler, 302, b"", {"Location": "http://rebind.example/again"})

    with LoopServer(handle) as site, canary() as bird:
        backend = RoutingBackend({PUBLIC: site.route}, default=bird.route)
        async with _fetcher(resolver, backend) as fetcher:
            with pytest.raises(FetchBlocked, match="redirect target") as info:
                await fetcher.fetch("http://rebind.example/")
    assert resolver.lookups == [("rebind.example", 80), ("rebind.example", 80)]
    assert backend.connects == [(PUBLIC, 80)]
    assert bird.hits == 0
    assert "10.0.0.1" not in str(info.value)


async def test_each_redirect_hop_connects_to_its_own_vetted_address() -> None:
    resolver = StubResolver({"a.example": [PUBLIC], "b.example": [OTHER_PUBLIC]})

    def handle(handler: BaseHTTPRequestHandler) -> None:
        if handler.headers["Host"] == "a.example":
            send(handler, 301, b"", {"Location": "http://b.example/landing"})
        else:
            page(handler)

    with LoopServer(handle) as site:
        backend = RoutingBackend({PUBLIC: site.route, OTHER_PUBLIC: site.route})
        async with _fetcher(resolver, backend) as fetcher:
            fetched = await fetcher.fetch("http://a.example/start")
    assert fetched.final_url == "http://b.example/landing"
    assert resolver.hosts() == ["a.example", "b.example"]
    assert backend.connects == [(PUBLIC, 80), (OTHER_PUBLIC, 80)]
    assert site.requests == [("/start", "a.example"), ("/landing", "b.example")]


async def test_pooled_connections_never_cross_vetted_addresses() -> None:
    answers = _answers([PUBLIC], [OTHER_PUBLIC], [OTHER_PUBLIC])
    resolver = StubResolver({"moving.example": answers})  # type: ignore[dict-item]
    with LoopServer(page, keep_alive=True) as site:
        backend = RoutingBackend({PUBLIC: site.route, OTHER_PUBLIC: site.route})
        async with _fetcher(resolver, backend) as fetcher:
            for _ in range(3):
                await fetcher.fetch("http://moving.example/")
    # the third fetch reuses the second's connection (same address): pooling works, and
    # the second fetch did not reuse the first's connection (another address)
    assert backend.connects == [(PUBLIC, 80), (OTHER_PUBLIC, 80)]
    assert site.connections == 2
    assert len(site.requests) == 3


async def test_pooled_connections_never_cross_host_names() -> None:
    resolver = StubResolver({"a.example": [PUBLIC], "b.example": [PUBLIC]})
    with LoopServer(page, keep_alive=True) as site:
        backend = RoutingBackend({PUBLIC: site.route})
        async with _fetcher(resolver, backend) as fetcher:
            for host in ("a.example", "b.example", "a.example"):
                await fetcher.fetch(f"http://{host}/")
    assert backend.connects == [(PUBLIC, 80), (PUBLIC, 80)]
    assert site.connections == 2


@pytest.mark.parametrize(
    ("url", "tls_name"),
    [("https://secure.example/", "secure.example"), (f"https://{PUBLIC}/", PUBLIC)],
)
async def test_tls_uses_the_host_name_while_connecting_to_the_pinned_address(
    url: str, tls_name: str
) -> None:
    resolver = StubResolver({"secure.example": [PUBLIC]})
    # a plain HTTP server: the handshake fails, after the backend saw the TLS name
    with LoopServer(page) as site:
        backend = RoutingBackend({PUBLIC: site.route})
        async with _fetcher(resolver, backend) as fetcher:
            with pytest.raises(FetchError, match="network error") as info:
                await fetcher.fetch(url)
    assert backend.connects == [(PUBLIC, 443)]
    assert backend.tls_names == [tls_name]
    assert "pin.invalid" not in str(info.value)


async def test_the_next_vetted_address_is_tried_when_one_refuses() -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    dead = ("127.0.0.1", int(closed.getsockname()[1]))
    closed.close()
    resolver = StubResolver({"dual.example": [PUBLIC, OTHER_PUBLIC]})
    with LoopServer(page) as site:
        backend = RoutingBackend({PUBLIC: dead, OTHER_PUBLIC: site.route})
        async with _fetcher(resolver, backend) as fetcher:
            assert (await fetcher.fetch("http://dual.example/")).status == 200
    assert backend.connects == [(PUBLIC, 80), (OTHER_PUBLIC, 80)]
    assert resolver.lookups == [("dual.example", 80)]


async def test_allowed_hosts_are_pinned_to_their_one_lookup() -> None:
    with LoopServer(page) as site, canary() as bird:
        # the second answer would point at the canary: it must never be asked for
        answers = _answers(["127.0.0.1"], ["::1"])
        resolver = StubResolver({"app.test": answers})  # type: ignore[dict-item]
        backend = RoutingBackend({"127.0.0.1": site.route}, default=bird.route)
        fetcher = _fetcher(resolver, backend, allow_hosts=[f"app.test:{site.port}"])
        async with fetcher:
            fetched = await fetcher.fetch(f"http://app.test:{site.port}/page")
    assert fetched.status == 200
    assert resolver.lookups == [("app.test", site.port)]
    assert backend.connects == [("127.0.0.1", site.port)]
    assert site.requests == [("/page", f"app.test:{site.port}")]
    assert bird.hits == 0


async def test_allowed_hosts_over_the_real_network() -> None:
    with LoopServer(page) as site:
        resolver = StubResolver({"app.test": ["127.0.0.1"]})
        fetcher = _fetcher(resolver, None, allow_hosts=["app.test"])
        async with fetcher:
            assert (await fetcher.fetch(f"http://app.test:{site.port}/x")).status == 200
    assert site.requests == [("/x", f"app.test:{site.port}")]


async def test_robots_txt_is_fetched_over_a_pinned_connection_too() -> None:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        if handler.path == "/robots.txt":
            send(handler, 200, b"User-agent: *\nAllow: /\n", {"Content-Type": "text/plain"})
        else:
            page(handler)

    resolver = StubResolver({"polite.example": [PUBLIC]})
    with LoopServer(handle) as site, canary() as bird:
        backend = RoutingBackend({PUBLIC: site.route}, default=bird.route)
        async with _fetcher(resolver, backend, respect_robots=True) as fetcher:
            assert (await fetcher.fetch("http://polite.example/a")).status == 200
    assert [path for path, _ in site.requests] == ["/robots.txt", "/a"]
    assert {address for address, _ in backend.connects} == {PUBLIC}
    assert resolver.hosts() == ["polite.example", "polite.example"]  # one per fetch
    assert bird.hits == 0


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"])
async def test_environment_proxies_are_ignored(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    with LoopServer(page) as site, canary() as proxy:
        monkeypatch.setenv(variable, f"http://127.0.0.1:{proxy.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        async with HttpFetcher(allow_hosts=["127.0.0.1"], respect_robots=False) as fetcher:
            assert (await fetcher.fetch(f"http://127.0.0.1:{site.port}/")).content == PAGE
        resolver = StubResolver({"example.org": [PUBLIC]})
        backend = RoutingBackend({PUBLIC: site.route})
        async with _fetcher(resolver, backend) as fetcher:
            assert (await fetcher.fetch("http://example.org/")).status == 200
    assert proxy.hits == 0
    assert backend.connects == [(PUBLIC, 80)]


# --- the transport and backend on their own -----------------------------------------------


async def test_an_unpinned_request_cannot_connect() -> None:
    with canary() as bird:
        async with PinnedTransport() as transport:
            for request in (
                httpx.Request("GET", f"http://127.0.0.1:{bird.port}/"),
                httpx.Request(
                    "GET", f"http://127.0.0.1:{bird.port}/", extensions={"deepresearch.pin": "x"}
                ),
            ):
                with pytest.raises(httpx.ConnectError, match="not pinned"):
                    await transport.handle_async_request(request)
    assert bird.hits == 0


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "localhost",
        "example.org",
        "7f000001.0123456789abcdef.pin.invalid.evil.example",
        "zz000001.0123456789abcdef.pin.invalid",
        "7f00000100.0123456789abcdef.pin.invalid",
        "7f000001.pin.invalid",
    ],
)
async def test_the_backend_refuses_hosts_that_are_not_pins(host: str) -> None:
    assert pinned_address(host) is None
    with canary() as bird:
        with pytest.raises(httpcore.ConnectError, match="not pinned"):
            await PinnedBackend().connect_tcp(host, bird.port)
        with pytest.raises(httpcore.ConnectError):
            await PinnedBackend().connect_unix_socket("/tmp/socket")
    assert bird.hits == 0


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1::1", "::ffff:a00:1"])
def test_pin_hosts_round_trip(address: str) -> None:
    pinned = pin_host(address, "example.org")
    assert pinned.endswith(".pin.invalid")
    assert pinned_address(pinned) == address
    assert pin_host(address, "example.org") != pin_host(address, "example.net")


def test_the_pinned_request_keeps_host_header_and_tls_name() -> None:
    from deepresearch.fetch.transport import _pinned

    pin = Pin("example.org", (PUBLIC,))
    request = pinned_request(
        httpx.URL("https://example.org:8443/p?q=1"), pin, headers={"X": "1"}, timeout_s=3
    )
    sent = _pinned(request, pin, PUBLIC)
    assert sent.headers["Host"] == "example.org:8443"
    assert sent.headers["X"] == "1"
    assert sent.url.host == pin_host(PUBLIC, "example.org")
    assert sent.url.port == 8443
    assert sent.url.raw_path == b"/p?q=1"
    assert sent.extensions["sni_hostname"] == "example.org"
    assert "deepresearch.pin" not in sent.extensions
    assert sent.extensions["timeout"]["connect"] == 3
