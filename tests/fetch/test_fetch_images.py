"""A report's figure fetched through the page fetcher's policy with the image rules
(issue 26): PNG, JPEG, WebP and GIF by their first bytes whatever was declared; SVG, a
page served as image/png and an oversized image refused; a host resolving to a private
address refused before any connection (a stub resolver; every connection is routed to a
loopback canary that must see nothing)."""

from __future__ import annotations

import io
from http.server import BaseHTTPRequestHandler

import pytest
from PIL import Image

from deepresearch.errors import FetchBlocked
from deepresearch.fetch.http_fetcher import HttpFetcher
from deepresearch.fetch.sniff import check_image_declared, check_image_head, image_type

from .netstub import LoopServer, RoutingBackend, StubResolver, canary, send

PUBLIC = "93.184.216.34"


def _image(fmt: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 6), (10, 200, 30)).save(out, format=fmt)
    return out.getvalue()


def _fetcher(resolver: StubResolver, backend: RoutingBackend) -> HttpFetcher:
    return HttpFetcher(
        resolver=resolver,
        network_backend=backend,
        respect_robots=False,
        min_interval_s=0,
        max_retries=0,
    )


def _serving(body: bytes, content_type: str) -> LoopServer:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        send(handler, 200, body, {"Content-Type": content_type})

    return LoopServer(handle)


@pytest.mark.parametrize(
    ("fmt", "mime"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp"), ("GIF", "image/gif")],
)
async def test_each_allowed_image_type_is_fetched_by_its_bytes(fmt: str, mime: str) -> None:
    body = _image(fmt)
    assert image_type(body) == mime
    resolver = StubResolver({"images.example": [PUBLIC]})
    with _serving(body, "application/octet-stream") as server:
        backend = RoutingBackend(default=server.route)
        async with _fetcher(resolver, backend) as fetcher:
            page = await fetcher.fetch_image("http://images.example/a", max_bytes=100_000)
    assert page.content == body
    assert server.requests and server.requests[0][1] == "images.example"


@pytest.mark.parametrize(
    ("body", "content_type", "says"),
    [
        (b'<svg xmlns="http://www.w3.org/2000/svg"/>', "image/svg+xml", "SVG"),
        (b"<!doctype html><p>a page</p>", "image/png", "not a PNG, JPEG, WebP or GIF"),
        (b'<svg xmlns="http://www.w3.org/2000/svg"/>', "image/png", "not a PNG"),
        (b"%PDF-1.4 a document", "application/pdf", "unsupported image type"),
    ],
)
async def test_what_is_not_an_allowed_image_is_refused(
    body: bytes, content_type: str, says: str
) -> None:
    resolver = StubResolver({"images.example": [PUBLIC]})
    with _serving(body, content_type) as server:
        backend = RoutingBackend(default=server.route)
        async with _fetcher(resolver, backend) as fetcher:
            with pytest.raises(FetchBlocked, match=says):
                await fetcher.fetch_image("http://images.example/a.png", max_bytes=100_000)


async def test_an_oversized_image_is_refused() -> None:
    body = _image("PNG") + b"\x00" * 5_000
    resolver = StubResolver({"images.example": [PUBLIC]})
    with _serving(body, "image/png") as server:
        backend = RoutingBackend(default=server.route)
        async with _fetcher(resolver, backend) as fetcher:
            with pytest.raises(FetchBlocked, match="larger than the limit of 1000 bytes"):
                await fetcher.fetch_image("http://images.example/a.png", max_bytes=1_000)


@pytest.mark.parametrize("address", ["10.0.0.7", "192.168.1.20", "127.0.0.1", "169.254.169.254"])
async def test_an_image_on_a_private_address_is_refused_before_connecting(address: str) -> None:
    resolver = StubResolver({"images.example": [address]})
    with canary() as server:
        backend = RoutingBackend(default=server.route)
        async with _fetcher(resolver, backend) as fetcher:
            with pytest.raises(FetchBlocked):
                await fetcher.fetch_image("http://images.example/a.png", max_bytes=100_000)
    assert backend.connects == [] and server.hits == 0


def test_the_declared_type_rules() -> None:
    for ok in (
        "image/png",
        "image/jpeg; q=1",
        "image/webp",
        "image/gif",
        "",
        "application/octet-stream",
    ):
        check_image_declared(ok)
    for refused in ("image/svg+xml", "text/html", "image/bmp", "image/x-icon"):
        with pytest.raises(FetchBlocked):
            check_image_declared(refused)
    with pytest.raises(FetchBlocked):
        check_image_head("image/png", b"RIFF\x00\x00\x00\x00WAVE")  # RIFF, but not WebP
