"""HttpFetcher against a loopback server (real sockets, 127.0.0.1 only) and, for the
address policy, a stubbed resolver plus a network backend that routes every pinned
connection to loopback, so nothing leaves the host."""

from __future__ import annotations

import contextlib
import gzip
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.base import Fetcher
from deepresearch.fetch.http_fetcher import HttpFetcher, is_public_ip, parse_allow_hosts

from .netstub import LoopServer, RoutingBackend, StubResolver, canary, send

PAGE = b"<html><head><title>Hello</title></head><body><p>Hello, loopback.</p></body></html>"
BIG = b"x" * 200_000


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        route, query = parts.path, parse_qs(parts.query)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._route(route, query)

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        all_headers = {"Content-Type": "text/html; charset=utf-8", "Content-Length": str(len(body))}
        all_headers.update(headers or {})
        for key, value in all_headers.items():
            if value:
                self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _route(self, route: str, query: dict[str, list[str]]) -> None:
        if route == "/page":
            self._send(200, PAGE, {"X-Agent": self.headers.get("User-Agent", "")})
        elif route.startswith("/chain/"):
            left = int(route.rsplit("/", 1)[1])
            if left == 0:
                self._send(200, PAGE)
            else:
                self._send(302, b"", {"Location": f"/chain/{left - 1}"})
        elif route == "/to":
            self._send(302, b"", {"Location": query["u"][0]})
        elif route.startswith("/status/"):
            self._send(int(route.rsplit("/", 1)[1]), b"<p>secret internal detail 10.1.2.3</p>")
        elif route == "/big":
            self._send(200, BIG)
        elif route == "/big-streamed":  # no Content-Length: the cap must apply while reading
            self._send_streamed(BIG)
        elif route == "/gzip":
            self._send(200, gzip.compress(PAGE), {"Content-Encoding": "gzip"})
        elif route == "/deflate-raw":
            raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
            body = raw.compress(PAGE) + raw.flush()
            self._send(200, body, {"Content-Encoding": "deflate"})
        elif route == "/bomb":
            self._send(200, gzip.compress(b"\0" * 20_000_000), {"Content-Encoding": "gzip"})
        elif route == "/stacked-bomb":
            body = gzip.compress(gzip.compress(b"\0" * 50_000_000))
            self._send(200, body, {"Content-Encoding": "gzip, gzip"})
        elif route == "/stacked":
            self._send(200, gzip.compress(gzip.compress(PAGE)), {"Content-Encoding": "gzip, gzip"})
        elif route == "/zstd":
            self._send(200, b"not really zstd", {"Content-Encoding": "zstd"})
        elif route == "/slow":
            time.sleep(1.0)
            self._send(200, PAGE)
        elif route == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(20):  # 1 byte per 50 ms: each read is quick, the whole is not
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.05)
        else:
            self._send(404, b"not found")

    def _send_streamed(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        for start in range(0, len(body), 8192):
            self.wfile.write(body[start : start + 8192])


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


async def _no_sleep(seconds: float) -> None:
    pass


def _fetcher(server: str, **kwargs: object) -> HttpFetcher:
    kwargs.setdefault("allow_hosts", [server])
    kwargs.setdefault("min_interval_s", 0.0)
    kwargs.setdefault("sleep", _no_sleep)  # retries of 5xx and refused connections: no waits
    return HttpFetcher(**kwargs)  # type: ignore[arg-type]


# --- happy paths ----------------------------------------------------------------------


async def test_fetches_a_page(server: str) -> None:
    async with _fetcher(server, user_agent="test-agent/1") as fetcher:
        assert isinstance(fetcher, Fetcher)
        page = await fetcher.fetch(f"http://{server}/page")
    assert page.status == 200
    assert page.content == PAGE
    assert page.content_type == "text/html; charset=utf-8"
    assert page.url == page.final_url == f"http://{server}/page"


@pytest.mark.parametrize("route", ["/gzip", "/deflate-raw", "/stacked"])
async def test_decodes_compressed_bodies(server: str, route: str) -> None:
    async with _fetcher(server) as fetcher:
        page = await fetcher.fetch(f"http://{server}{route}")
    assert page.content == PAGE


# --- redirects ------------------------------------------------------------------------


async def test_follows_redirects_up_to_the_cap(server: str) -> None:
    async with _fetcher(server, max_redirects=5) as fetcher:
        page = await fetcher.fetch(f"http://{server}/chain/5")
        assert page.final_url == f"http://{server}/chain/0"
        assert page.url == f"http://{server}/chain/5"
        with pytest.raises(FetchBlocked, match="too many redirects"):
            await fetcher.fetch(f"http://{server}/chain/6")


async def test_no_redirects_when_cap_is_zero(server: str) -> None:
    async with _fetcher(server, max_redirects=0) as fetcher:
        with pytest.raises(FetchBlocked, match="too many redirects"):
            await fetcher.fetch(f"http://{server}/chain/1")


@pytest.mark.parametrize(
    "target", ["ftp://example.org/file", "file:///etc/passwd", "http://127.0.0.1:1/admin"]
)
async def test_redirect_targets_are_checked(server: str, target: str) -> None:
    async with _fetcher(server) as fetcher:
        with pytest.raises(FetchBlocked, match="redirect target"):
            await fetcher.fetch(f"http://{server}/to?u={target}")


async def test_redirect_to_a_host_that_resolves_private_is_refused(server: str) -> None:
    lookups: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        lookups.append(host)
        return ["10.0.0.1"]

    async with _fetcher(server, resolver=resolver) as fetcher:
        with pytest.raises(FetchBlocked) as info:
            await fetcher.fetch(f"http://{server}/to?u=http://intranet.example/")
    assert lookups == ["intranet.example"]
    assert "10.0.0.1" not in str(info.value)


# --- size, status and time ------------------------------------------------------------


@pytest.mark.parametrize("route", ["/big", "/big-streamed"])
async def test_size_cap(server: str, route: str) -> None:
    async with _fetcher(server, max_bytes=50_000) as fetcher:
        with pytest.raises(FetchBlocked, match="larger than the limit"):
            await fetcher.fetch(f"http://{server}{route}")
    async with _fetcher(server, max_bytes=len(BIG)) as fetcher:
        assert len((await fetcher.fetch(f"http://{server}{route}")).content) == len(BIG)


@pytest.mark.parametrize("route", ["/bomb", "/stacked-bomb"])
async def test_compression_bombs_stop_at_the_cap(server: str, route: str) -> None:
    async with _fetcher(server, max_bytes=100_000) as fetcher:
        with pytest.raises(FetchBlocked, match="larger than the limit"):
            await fetcher.fetch(f"http://{server}{route}")


async def test_unknown_content_encoding_is_an_error(server: str) -> None:
    async with _fetcher(server) as fetcher:
        with pytest.raises(FetchError, match="content encoding"):
            await fetcher.fetch(f"http://{server}/zstd")


@pytest.mark.parametrize("status", [404, 403, 500, 503])
async def test_http_errors_are_sanitized(server: str, status: int) -> None:
    async with _fetcher(server) as fetcher:
        with pytest.raises(FetchError) as info:
            await fetcher.fetch(f"http://{server}/status/{status}")
    assert not isinstance(info.value, FetchBlocked)
    assert str(info.value) == f"remote server returned HTTP {status}"


@pytest.mark.parametrize("route", ["/slow", "/drip"])
async def test_total_deadline(server: str, route: str) -> None:
    async with _fetcher(server, timeout_s=0.3) as fetcher:
        started = time.monotonic()
        with pytest.raises(FetchError, match="request timed out"):
            await fetcher.fetch(f"http://{server}{route}")
    assert time.monotonic() - started < 0.9


async def test_network_error_is_mapped(server: str) -> None:
    host, _ = server.split(":")
    # port 1 on loopback: allowed by the policy, nothing listens there
    async with _fetcher(server, allow_hosts=[host]) as fetcher:
        with pytest.raises(FetchError, match="network error while fetching URL"):
            await fetcher.fetch("http://127.0.0.1:1/")


# --- scheme and address policy --------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["ftp://example.org/", "file:///etc/passwd", "gopher://example.org/", "data:text/plain,hi"],
)
async def test_only_http_and_https(url: str) -> None:
    async with HttpFetcher() as fetcher:
        with pytest.raises(FetchBlocked, match="only http and https"):
            await fetcher.fetch(url)


@pytest.mark.parametrize(
    "url", ["http:///nohost", "http://127.0.0.%31/", "http://exa mple.org/", "http://a\0b.org/"]
)
async def test_malformed_urls_are_refused(url: str) -> None:
    async with HttpFetcher() as fetcher:
        with pytest.raises(FetchBlocked, match="invalid URL"):
            await fetcher.fetch(url)


async def test_loopback_is_refused_unless_allowed(server: str) -> None:
    port = int(server.rsplit(":", 1)[1])
    async with HttpFetcher() as fetcher:
        with pytest.raises(FetchBlocked, match="non-public address"):
            await fetcher.fetch(f"http://{server}/page")
    async with HttpFetcher(allow_hosts=[server]) as fetcher:
        assert (await fetcher.fetch(f"http://{server}/page")).status == 200
        with pytest.raises(FetchBlocked, match="non-public address"):  # another port
            await fetcher.fetch(f"http://127.0.0.1:{port + 1}/page")
        with pytest.raises(FetchBlocked):  # host:port entries match the host literally
            await fetcher.fetch(f"http://localhost:{port}/page")
    async with HttpFetcher(allow_hosts=["127.0.0.1"]) as fetcher:  # any port
        assert (await fetcher.fetch(f"http://{server}/page")).status == 200


@pytest.mark.parametrize(
    "host", ["127.1", "2130706433", "0x7f.0.0.1", "0", "[::1]", "[::ffff:127.0.0.1]", "a@127.0.0.1"]
)
async def test_loopback_spellings_are_refused(server: str, host: str) -> None:
    port = int(server.rsplit(":", 1)[1])
    async with HttpFetcher() as fetcher:  # the system resolver; nothing is allowed
        with pytest.raises(FetchBlocked):
            await fetcher.fetch(f"http://{host}:{port}/page")


def _public_site() -> LoopServer:
    """Where connections to the stub "public" addresses really go (loopback)."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        if handler.path == "/redirect-internal":
            send(handler, 301, b"", {"Location": "http://internal.example/secret"})
        else:
            send(handler, 200, b"ok", {"Content-Type": "text/plain"})

    return LoopServer(handle)


BLOCKED_ANSWERS = [
    ["10.0.0.1"],
    ["192.168.1.1"],
    ["172.16.0.1"],
    ["169.254.169.254"],
    ["100.64.0.1"],
    ["127.0.0.1"],
    ["0.0.0.0"],
    ["224.0.0.1"],
    ["fd00:ec2::254"],
    ["fe80::1%eth0"],
    ["::ffff:10.0.0.1"],
    ["93.184.216.34", "10.0.0.1"],  # one private answer spoils a mixed set
    ["not-an-address"],
]


@pytest.mark.parametrize("answer", BLOCKED_ANSWERS)
async def test_non_public_answers_are_refused_without_traffic(answer: list[str]) -> None:
    resolver = StubResolver({"example.org": answer})
    with canary() as bird:
        backend = RoutingBackend(default=bird.route)
        fetcher = HttpFetcher(resolver=resolver, respect_robots=False, network_backend=backend)
        async with fetcher:
            with pytest.raises(FetchBlocked, match="non-public address") as info:
                await fetcher.fetch("https://example.org/article")
    assert backend.connects == []
    assert bird.hits == 0
    assert resolver.lookups == [("example.org", 443)]
    for address in answer:
        assert address not in str(info.value)


async def test_public_answers_are_fetched_over_a_pinned_connection() -> None:
    resolver = StubResolver({"example.org": ["93.184.216.34", "2606:2800:220:1::1"]})
    with _public_site() as site:
        backend = RoutingBackend(default=site.route)
        fetcher = HttpFetcher(resolver=resolver, respect_robots=False, network_backend=backend)
        async with fetcher:
            page = await fetcher.fetch("http://example.org:8080/a")
    assert page.content == b"ok"
    assert resolver.lookups == [("example.org", 8080)]
    assert backend.connects == [("93.184.216.34", 8080)]
    assert site.requests == [("/a", "example.org:8080")]


async def test_each_hop_is_resolved_once_and_checked() -> None:
    resolver = StubResolver({"public.example": ["8.8.8.8"], "internal.example": ["10.9.8.7"]})
    with _public_site() as site:
        backend = RoutingBackend(default=site.route)
        fetcher = HttpFetcher(resolver=resolver, respect_robots=False, network_backend=backend)
        async with fetcher:
            with pytest.raises(FetchBlocked, match="redirect target"):
                await fetcher.fetch("http://public.example:8443/redirect-internal")
    assert resolver.lookups == [("public.example", 8443), ("internal.example", 80)]
    assert backend.connects == [("8.8.8.8", 8443)]
    assert site.requests == [("/redirect-internal", "public.example:8443")]


async def test_ip_literals_are_judged_without_a_lookup() -> None:
    resolver = StubResolver({})
    with _public_site() as site:
        backend = RoutingBackend(default=site.route)
        fetcher = HttpFetcher(resolver=resolver, respect_robots=False, network_backend=backend)
        async with fetcher:
            for url in ("http://10.0.0.1/", "http://[fd00::1]:8080/", "http://[::ffff:a00:1]/"):
                with pytest.raises(FetchBlocked, match="non-public address"):
                    await fetcher.fetch(url)
            assert backend.connects == []
            assert (await fetcher.fetch("http://93.184.216.34/")).content == b"ok"
    assert resolver.lookups == []
    assert backend.connects == [("93.184.216.34", 80)]


async def test_unresolvable_host_is_a_fetch_error() -> None:
    resolver = StubResolver({"nowhere.example": []})
    with canary() as bird:
        backend = RoutingBackend(default=bird.route)
        fetcher = HttpFetcher(resolver=resolver, respect_robots=False, network_backend=backend)
        async with fetcher:
            with pytest.raises(FetchError, match="could not resolve") as info:
                await fetcher.fetch("http://nowhere.example/")
    assert not isinstance(info.value, FetchBlocked)
    assert bird.hits == 0


# --- pure helpers ---------------------------------------------------------------------

NOT_PUBLIC = [
    "127.0.0.1",
    "127.255.255.255",
    "0.0.0.0",
    "0.1.1.1",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "100.64.0.1",
    "100.127.255.254",
    "169.254.169.254",
    "198.18.0.1",
    "198.19.255.255",
    "192.0.2.1",
    "198.51.100.1",
    "203.0.113.1",
    "192.0.0.9",
    "224.0.0.1",
    "240.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254",
    "fec0::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::fFFf:127.0.0.1",
    "000:0:0000::01",
    "::a00:1",
    "64:ff9b::a00:1",
    "64:ff9b:1::1",
    "2002:a00:1::1",
    "2001:0:4136:e378:8000:63bf:3f57:fdf2",
    "2001:db8::1",
    "127.1",
    "0x7f.0.0.1",
    "",
    "localhost",
]
PUBLIC = [
    "8.8.8.8",
    "93.184.216.34",
    "100.63.255.254",
    "100.128.0.1",
    "172.32.0.1",
    "::ffff:8.8.8.0",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "2606:4700:4700::1111",
]


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_not_public(address: str) -> None:
    assert not is_public_ip(address)


@pytest.mark.parametrize("address", PUBLIC)
def test_public(address: str) -> None:
    assert is_public_ip(address)


def test_parse_allow_hosts() -> None:
    parsed = parse_allow_hosts(
        ["Example.org", "127.0.0.1:8899", "[::1]:8080", "::1", " ", "a.b.", "bücher.example"]
    )
    assert parsed == {
        ("xn--bcher-kva.example", None),
        ("example.org", None),
        ("127.0.0.1", 8899),
        ("::1", 8080),
        ("::1", None),
        ("a.b", None),
    }
    with pytest.raises(ValueError, match="invalid allow_hosts"):
        parse_allow_hosts(["host:port"])
