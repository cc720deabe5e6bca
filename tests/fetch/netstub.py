"""Test plumbing for the pinned fetcher: a stub resolver, a network backend that routes
every pinned connection to a loopback server (so no packet leaves 127.0.0.1 whatever
address the guard vetted), and small loopback HTTP servers that record what reached them."""

from __future__ import annotations

import contextlib
import socket
import threading
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpcore

Route = tuple[str, int]


class StubResolver:
    """Canned answers per host name; numeric hosts the real ``getaddrinfo`` would accept
    (``127.1``, ``0x7f.0.0.1``, ``2130706433`` ...) are answered the way it would, offline.
    Every lookup is recorded."""

    def __init__(self, answers: Mapping[str, Sequence[str] | Callable[[], Sequence[str]]]):
        self.answers = dict(answers)
        self.lookups: list[tuple[str, int]] = []

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.lookups.append((host, port))
        answer = self.answers.get(host)
        if answer is not None:
            return answer() if callable(answer) else list(answer)
        try:
            return [socket.inet_ntoa(socket.inet_aton(host))]
        except OSError:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None

    def hosts(self) -> list[str]:
        return [host for host, _ in self.lookups]


class CountingStream(httpcore.AsyncNetworkStream):
    """A network stream that counts the bytes read and records TLS server names."""

    def __init__(self, inner: httpcore.AsyncNetworkStream, backend: RoutingBackend) -> None:
        self._inner = inner
        self._backend = backend

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        data = await self._inner.read(max_bytes, timeout)
        self._backend.bytes_read += len(data)
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: typing.Any,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> httpcore.AsyncNetworkStream:
        self._backend.tls_names.append(server_hostname)
        inner = await self._inner.start_tls(ssl_context, server_hostname, timeout)
        return CountingStream(inner, self._backend)

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class RoutingBackend(httpcore.AsyncNetworkBackend):
    """The fetcher's ``network_backend`` in tests: records the (address, port) each pinned
    connection asks for, then connects to ``routes[address]`` or ``default`` on loopback."""

    def __init__(self, routes: Mapping[str, Route] | None = None, default: Route | None = None):
        self.routes = dict(routes or {})
        self.default = default
        self.connects: list[Route] = []
        self.tls_names: list[str | None] = []
        self.bytes_read = 0
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connects.append((host, port))
        destination = self.routes.get(host, self.default)
        if destination is None:
            raise httpcore.ConnectError("no test route")
        assert destination[0] in ("127.0.0.1", "::1"), destination
        stream = await self._inner.connect_tcp(*destination, timeout=timeout)
        return CountingStream(stream, self)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise AssertionError("the fetcher must never open a unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


Handler = Callable[[BaseHTTPRequestHandler], None]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass


class LoopServer:
    """A loopback HTTP server; ``handle`` answers every request, which is recorded as
    (path, Host header)."""

    def __init__(self, handle: Handler, *, keep_alive: bool = False, host: str = "127.0.0.1"):
        self.requests: list[tuple[str, str]] = []
        self.connections = 0
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                server.connections += 1

            def do_GET(self) -> None:
                server.requests.append((self.path, self.headers.get("Host", "")))
                with contextlib.suppress(OSError):
                    handle(self)

        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        server_class = type("_FamilyServer", (_Server,), {"address_family": family})
        self._httpd = server_class((host, 0), _Handler)
        self.host = host
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def route(self) -> Route:
        return (self.host, self.port)

    @property
    def hits(self) -> int:
        return len(self.requests)

    def __enter__(self) -> LoopServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def send(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes = b"",
    headers: Mapping[str, str] | None = None,
) -> None:
    """Answer with ``body``; Content-Type text/html and Content-Length unless overridden
    (a header given as "" is left out)."""
    handler.send_response(status)
    merged = {"Content-Type": "text/html; charset=utf-8", "Content-Length": str(len(body))}
    merged.update(headers or {})
    for name, value in merged.items():
        if value:
            handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


PAGE = b"<!doctype html><html><head><title>Hi</title></head><body><p>Hello.</p></body></html>"


def page(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 200, PAGE)


@contextlib.contextmanager
def canary() -> Iterator[LoopServer]:
    """A loopback server that must never be reached: it answers 200 so that a request
    the guard wrongly let through would succeed, and records it."""
    with LoopServer(lambda h: send(h, 200, b"<p>canary</p>")) as server:
        yield server
