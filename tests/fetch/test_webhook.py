"""Webhook deliveries (issue 25): https to public addresses or loopback only (resolved
through a stubbed resolver: no traffic leaves the machine), signed with HMAC-SHA256 over
the exact body, retried with backoff on a 5xx, never on a refusal."""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from deepresearch.errors import FetchBlocked
from deepresearch.fetch.webhook import SIGNATURE_HEADER, deliver, sign, vet_webhook


def _resolver(answers: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    async def resolve(host: str, port: int) -> Sequence[str]:
        return answers[host]

    return resolve


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("https://hooks.test/in", "private or local"),  # resolves to 10.1.2.3
        ("https://meta.test/in", "private or local"),  # resolves to 169.254.169.254
        ("https://10.0.0.1/in", "private or local"),
        ("https://localhost/in", "private or local"),
        ("http://public.test/in", "https"),
        ("ftp://127.0.0.1/in", "https"),
        ("not a url", "https"),
    ],
)
async def test_refused(url: str, needle: str) -> None:
    resolver = _resolver(
        {"hooks.test": ["10.1.2.3"], "meta.test": ["169.254.169.254"], "public.test": ["8.8.8.8"]}
    )
    with pytest.raises(FetchBlocked, match=needle):
        await vet_webhook(url, resolver)


async def test_allowed() -> None:
    resolver = _resolver({"public.test": ["93.184.216.34"]})
    target = await vet_webhook("https://public.test/in", resolver)
    assert target.addresses == ("93.184.216.34",)
    local = await vet_webhook("http://127.0.0.1:9/in", resolver)
    assert local.addresses == ("127.0.0.1",)


class _Receiver(BaseHTTPRequestHandler):
    statuses: ClassVar[list[int]] = []
    seen: ClassVar[list[tuple[bytes, str]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append((body, self.headers.get(SIGNATURE_HEADER, "")))
        status = self.statuses.pop(0) if self.statuses else 200
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, type[_Receiver]]]:
    handler = type("Handler", (_Receiver,), {"statuses": [], "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", handler
    finally:
        server.shutdown()
        server.server_close()


def test_signed_and_retried(receiver: tuple[str, type[_Receiver]]) -> None:
    url, handler = receiver
    handler.statuses = [503, 500]
    waits: list[float] = []
    body = b'{"summary": "1 new finding"}'
    assert deliver(url, body, "s3cret", attempts=4, sleep=waits.append)
    assert len(handler.seen) == 3 and len(waits) == 2 and waits[1] >= waits[0] * 0.5
    expected = "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert all(seen == (body, expected) for seen in handler.seen)
    assert sign("s3cret", body) == expected


def test_a_refusal_is_not_retried(receiver: tuple[str, type[_Receiver]]) -> None:
    url, handler = receiver
    handler.statuses = [410]
    assert not deliver(url, b"{}", "k", attempts=4, sleep=lambda _s: None)
    assert len(handler.seen) == 1
    assert not deliver("https://10.0.0.1/x", b"{}", "k", sleep=lambda _s: None)


def test_gives_up_after_its_attempts(receiver: tuple[str, type[_Receiver]]) -> None:
    url, handler = receiver
    handler.statuses = [500, 500, 500]
    assert not deliver(url, b"{}", "k", attempts=3, sleep=lambda _s: None)
    assert len(handler.seen) == 3
