"""Limits on untrusted bodies (security reference, section 2): the content-type allowlist
checked against magic bytes, br and stacked decoding under the decoded-bytes cap, unknown
encodings, oversize and lying Content-Length, drip-feed and endless bodies.

Bytes read are counted on the socket by the test network backend; times are measured but
asserted generously (deadline + 1 s)."""

from __future__ import annotations

import gzip
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler

import brotli
import pytest

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.http_fetcher import HttpFetcher

from .netstub import PAGE, LoopServer, RoutingBackend, StubResolver, send

PUBLIC = "93.184.216.34"
CAP = 1_000_000
KIB_64 = 64 * 1024
HEAD_SLACK = 1024  # the response head and chunk framing, read along with the body
MIB = b"a" * (1 << 20)


def _gzip_bomb(gib: int = 1) -> bytes:
    """``gib`` GiB of "a" gzip-compressed, without compressing it all: after a full flush
    every further MiB compresses to the same bytes. (No trailer: nobody reads that far.)"""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    first = compressor.compress(MIB) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeated = compressor.compress(MIB) + compressor.flush(zlib.Z_FULL_FLUSH)
    return first + repeated * (1024 * gib - 1)


def _br_bomb() -> bytes:
    compressor = brotli.Compressor(quality=1)
    return b"".join([compressor.process(MIB) for _ in range(1024)] + [compressor.finish()])


GZIP_BOMB = _gzip_bomb()
BR_BOMB = _br_bomb()
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64
ZIP = b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"x" * 64
ELF = b"\x7fELF\x02\x01\x01" + b"\x00" * 64
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


def _plain(body: bytes, **headers: str) -> Callable[[BaseHTTPRequestHandler], None]:
    merged = {"Content-Type": "text/plain"}
    merged.update({name.replace("_", "-"): value for name, value in headers.items()})
    return lambda handler: send(handler, 200, body, merged)


def _drip(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.end_headers()
    for _ in range(30):  # 1 byte per second: every read is quick, the whole is not
        handler.wfile.write(b"x")
        handler.wfile.flush()
        time.sleep(1.0)


def _drip_head(handler: BaseHTTPRequestHandler) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
    for _ in range(30):  # a header line dripped 1 byte per second
        handler.wfile.write(b"X")
        handler.wfile.flush()
        time.sleep(1.0)


def _endless_chunked(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    chunk = b"a" * 60_000
    frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    while True:
        handler.wfile.write(frame)


def _lying_length(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "100")
    handler.end_headers()
    for _ in range(200):  # 10 MB more than declared
        handler.wfile.write(b"a" * 50_000)


def _short_length(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "5000")
    handler.end_headers()
    handler.wfile.write(b"only ten b")


def _huge_length(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", str(10**12))
    handler.end_headers()
    for _ in range(200):
        handler.wfile.write(b"a" * 50_000)


ROUTES: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {
    # content types and magic bytes
    "/html": _plain(PAGE, Content_Type="text/html; charset=utf-8"),
    "/xhtml": _plain(PAGE, Content_Type="application/xhtml+xml"),
    "/text": _plain(b"plain words\n"),
    "/pdf": _plain(PDF, Content_Type="application/pdf"),
    "/no-type-html": _plain(PAGE, Content_Type=""),
    "/no-type-pdf": _plain(PDF, Content_Type=""),
    "/octet-pdf": _plain(PDF, Content_Type="application/octet-stream"),
    "/utf16-html": _plain(
        "\ufeff<html><body>hi</body></html>".encode("utf-16-le"), Content_Type="text/html"
    ),
    "/png-as-html": _plain(PNG, Content_Type="text/html"),
    "/zip-as-html": _plain(ZIP, Content_Type="text/html"),
    "/elf-as-text": _plain(ELF),
    "/gzip-magic-as-html": _plain(gzip.compress(PAGE), Content_Type="text/html"),
    "/nul-in-html": _plain(b"<html>" + b"\x00" * 10 + b"</html>", Content_Type="text/html"),
    "/late-magic-png": _plain(b"a" * 5000 + PNG),  # only the first KiB is judged
    "/html-as-pdf": _plain(PAGE, Content_Type="application/pdf"),
    "/png-no-type": _plain(PNG, Content_Type=""),
    "/zip-octet": _plain(ZIP, Content_Type="application/octet-stream"),
    "/image": _plain(PNG, Content_Type="image/png"),
    "/json": _plain(b"{}", Content_Type="application/json"),
    "/odd-type": _plain(b"x", Content_Type="x/<script>alert(1)</script>"),
    "/png-gzipped-as-html": _plain(
        gzip.compress(PNG), Content_Type="text/html", Content_Encoding="gzip"
    ),
    # encodings
    "/br": _plain(brotli.compress(PAGE), Content_Encoding="br"),
    "/gzip-br": _plain(brotli.compress(gzip.compress(PAGE)), Content_Encoding="gzip, br"),
    "/br-gzip": _plain(gzip.compress(brotli.compress(PAGE)), Content_Encoding="br, gzip"),
    "/gzip-gzip": _plain(gzip.compress(gzip.compress(PAGE)), Content_Encoding="gzip, gzip"),
    "/identity-gzip": _plain(gzip.compress(PAGE), Content_Encoding="identity, gzip"),
    "/corrupt-br": _plain(b"this is not brotli at all", Content_Encoding="br"),
    "/zstd": _plain(b"(\xb5/\xfd" + b"x" * 20, Content_Encoding="zstd"),
    "/compress": _plain(b"x" * 20, Content_Encoding="compress"),
    "/gzip-zstd": _plain(gzip.compress(PAGE), Content_Encoding="gzip, zstd"),
    "/bogus": _plain(b"x" * 20, Content_Encoding="x-bogus"),
    "/five-gzips": _plain(PAGE, Content_Encoding="gzip, gzip, gzip, gzip, gzip"),
    # bombs and lengths
    "/gzip-bomb": _plain(GZIP_BOMB, Content_Encoding="gzip"),
    "/gzip-gzip-bomb": _plain(gzip.compress(GZIP_BOMB), Content_Encoding="gzip, gzip"),
    "/br-bomb": _plain(BR_BOMB, Content_Encoding="br"),
    "/gzip-br-bomb": _plain(brotli.compress(GZIP_BOMB), Content_Encoding="gzip, br"),
    "/lying-gzip-bomb": _plain(GZIP_BOMB, Content_Encoding="gzip", Content_Length="100"),
    "/huge-length": _huge_length,
    "/lying-length": _lying_length,
    "/short-length": _short_length,
    "/endless": _endless_chunked,
    "/drip": _drip,
    "/drip-head": _drip_head,
}


def _route(handler: BaseHTTPRequestHandler) -> None:
    ROUTES[handler.path](handler)


@pytest.fixture(scope="module")
def site() -> Iterator[LoopServer]:
    with LoopServer(_route) as server:
        yield server


class _Rig:
    """A fetcher for the "public" name ``site.example``, routed to the loopback site."""

    def __init__(self, site: LoopServer, **kwargs: object) -> None:
        self.backend = RoutingBackend({PUBLIC: site.route})
        kwargs.setdefault("max_bytes", CAP)
        self.fetcher = HttpFetcher(
            resolver=StubResolver({"site.example": [PUBLIC]}),
            respect_robots=False,
            min_interval_s=0,
            max_retries=0,
            network_backend=self.backend,
            **kwargs,  # type: ignore[arg-type]
        )

    async def fetch(self, path: str) -> bytes:
        async with self.fetcher:
            return (await self.fetcher.fetch(f"http://site.example{path}")).content


# --- content types ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/html",
        "/xhtml",
        "/text",
        "/pdf",
        "/no-type-html",
        "/no-type-pdf",
        "/octet-pdf",
        "/utf16-html",
        "/late-magic-png",
    ],
)
async def test_allowed_bodies(site: LoopServer, path: str) -> None:
    assert await _Rig(site).fetch(path)


@pytest.mark.parametrize(
    "path",
    [
        "/png-as-html",
        "/zip-as-html",
        "/elf-as-text",
        "/gzip-magic-as-html",
        "/nul-in-html",
        "/png-no-type",
        "/zip-octet",
        "/png-gzipped-as-html",
    ],
)
async def test_binary_served_as_a_page_is_refused(site: LoopServer, path: str) -> None:
    with pytest.raises(FetchBlocked, match="binary data"):
        await _Rig(site).fetch(path)


async def test_a_declared_pdf_must_be_one(site: LoopServer) -> None:
    with pytest.raises(FetchBlocked, match="not the PDF"):
        await _Rig(site).fetch("/html-as-pdf")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/image", "unsupported content type: image/png"),
        ("/json", "unsupported content type: application/json"),
        ("/odd-type", "unsupported content type"),
    ],
)
async def test_types_outside_the_allowlist_are_refused(
    site: LoopServer, path: str, message: str
) -> None:
    with pytest.raises(FetchBlocked) as info:
        await _Rig(site).fetch(path)
    assert str(info.value) == message


# --- encodings -------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/br", "/gzip-br", "/br-gzip", "/gzip-gzip", "/identity-gzip"])
async def test_br_and_stacked_encodings_are_decoded(site: LoopServer, path: str) -> None:
    assert await _Rig(site).fetch(path) == PAGE


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/zstd", "unsupported content encoding"),
        ("/compress", "unsupported content encoding"),
        ("/gzip-zstd", "unsupported content encoding"),
        ("/bogus", "unsupported content encoding"),
        ("/five-gzips", "unsupported content encoding"),
        ("/corrupt-br", "compressed body is corrupt"),
    ],
)
async def test_unknown_or_broken_encodings_are_refused(
    site: LoopServer, path: str, message: str
) -> None:
    with pytest.raises(FetchError, match=message):
        await _Rig(site).fetch(path)


@pytest.mark.parametrize("path", ["/gzip-bomb", "/gzip-gzip-bomb", "/br-bomb", "/gzip-br-bomb"])
async def test_compression_bombs_stop_at_the_decoded_cap(site: LoopServer, path: str) -> None:
    rig = _Rig(site)
    tracemalloc.start()
    try:
        with pytest.raises(FetchBlocked, match="larger than the limit"):
            await rig.fetch(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rig.backend.bytes_read <= CAP + KIB_64 + HEAD_SLACK
    assert peak < 50_000_000  # 1 GiB of output was on offer


# --- lengths and time ------------------------------------------------------------------


async def test_an_oversize_content_length_is_refused_before_reading(site: LoopServer) -> None:
    rig = _Rig(site)
    with pytest.raises(FetchBlocked, match="larger than the limit"):
        await rig.fetch("/huge-length")
    assert rig.backend.bytes_read <= KIB_64 + HEAD_SLACK


async def test_a_lying_content_length_reads_only_what_it_declared(site: LoopServer) -> None:
    rig = _Rig(site)
    assert await rig.fetch("/lying-length") == b"a" * 100
    assert rig.backend.bytes_read <= CAP + KIB_64 + HEAD_SLACK


async def test_a_lying_content_length_on_a_bomb_reads_only_what_it_declared(
    site: LoopServer,
) -> None:
    rig = _Rig(site)
    body = await rig.fetch("/lying-gzip-bomb")  # 100 compressed bytes: a little "a"
    assert 0 < len(body) <= CAP
    assert set(body) == {ord("a")}
    assert rig.backend.bytes_read <= KIB_64 + HEAD_SLACK


async def test_a_body_shorter_than_its_content_length_is_an_error(site: LoopServer) -> None:
    with pytest.raises(FetchError, match="network error"):
        await _Rig(site).fetch("/short-length")


async def test_an_endless_chunked_body_stops_at_the_cap(site: LoopServer) -> None:
    rig = _Rig(site, timeout_s=10.0)
    started = time.monotonic()
    with pytest.raises(FetchBlocked, match="larger than the limit"):
        await rig.fetch("/endless")
    assert rig.backend.bytes_read <= CAP + KIB_64 + HEAD_SLACK
    assert time.monotonic() - started <= 10.0 + 1.0


@pytest.mark.parametrize("path", ["/drip", "/drip-head"])
async def test_a_drip_feed_is_stopped_at_the_total_deadline(site: LoopServer, path: str) -> None:
    rig = _Rig(site, timeout_s=2.0)
    started = time.monotonic()
    with pytest.raises(FetchError, match="request timed out"):
        await rig.fetch(path)
    assert time.monotonic() - started <= 2.0 + 1.0
