"""A loopback webhook receiver for the watch tests: it answers each POST with the status
it is set to (``answer``) and keeps what it was sent and what it answered."""

from __future__ import annotations

import hmac
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from hashlib import sha256
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Receiver:
    url: str
    #: the status the next POSTs are answered with
    answer: int = 204
    #: (body, signature header, status answered) of every POST
    posts: list[tuple[bytes, str, int]] = field(default_factory=list)
    #: POSTs wait for this before they are answered; ``arrived`` is set when one waits
    gate: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.gate.set()  # open unless a test closes it

    def taken(self) -> list[tuple[bytes, str]]:
        """The POSTs answered with a 2xx: the deliveries the receiver took."""
        return [(body, sig) for body, sig, status in self.posts if 200 <= status < 300]


def signed(secret: str, body: bytes, signature: str) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), body, sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


@contextmanager
def webhook_receiver() -> Iterator[Receiver]:
    lock = threading.Lock()
    receiver = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            receiver.arrived.set()
            receiver.gate.wait(30)
            with lock:
                status = receiver.answer
                receiver.posts.append(
                    (body, self.headers.get("X-Deepresearch-Signature", ""), status)
                )
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield receiver
    finally:
        receiver.gate.set()
        server.shutdown()
        server.server_close()
