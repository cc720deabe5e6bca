"""uvicorn's HTTP/1.1 protocol (h11), answering what it cannot parse as the service answers
everything else: with problem details (RFC 9457).

uvicorn refuses a request h11 cannot parse (a head still incomplete past
``MAX_HEAD_BYTES``, a malformed request line or header) with a plain-text 400 and closes
the connection at once, with the client's unread bytes still arriving: the kernel then
resets the connection, and a client still sending its headers sees the reset rather than
the answer. Here the answer is a problem document with the status h11 names (431 for a
head too large, else 400); then the connection is half-closed and what the client still
sends is read and dropped for up to ``LINGER_S`` seconds, so the answer is read. A head
that arrives whole but too large is refused by ``middleware.HeaderCap`` in the same words.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from deepresearch.service.problems import (
    MAX_HEAD_BYTES,
    SECURITY_HEADERS,
    TITLES,
    head_too_large,
    problem_body,
)

#: how long a refused connection still reads (and drops) what the client sends
LINGER_S = 2.0


class _Connection(h11.Connection):
    """h11's connection, keeping the error that stopped it: h11 says which status fits."""

    stopped_by: h11.RemoteProtocolError | None = None

    def next_event(self) -> Any:
        try:
            return super().next_event()
        except h11.RemoteProtocolError as exc:
            self.stopped_by = exc
            raise


class ProblemH11Protocol(H11Protocol):
    """uvicorn's ``H11Protocol`` with problem details for the requests it refuses itself."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_limit = self.config.h11_max_incomplete_event_size or MAX_HEAD_BYTES
        self.conn = _Connection(h11.SERVER, max_incomplete_event_size=self.head_limit)
        self.refused = False

    def data_received(self, data: bytes) -> None:
        if self.refused:  # the answer is out; the rest of the request is not wanted
            return
        super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        error = self.conn.stopped_by if isinstance(self.conn, _Connection) else None
        status = error.error_status_hint if error is not None else 400
        if status == 431:
            detail, kind = head_too_large(self.head_limit), "header-too-large"
        else:
            detail, kind = "the request is not valid HTTP/1.1; check how it is sent", "bad-http"
        body = json.dumps(problem_body(status, detail, kind=kind), separators=(",", ":")).encode()
        headers = [
            (b"content-type", b"application/problem+json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
            *((name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items()),
        ]
        reason = TITLES.get(status, "Bad request").encode()
        for event in (
            h11.Response(status_code=status, headers=headers, reason=reason),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event) or b"")
        self.refused = True
        if self.transport.can_write_eof():  # the answer, then the end: the client reads it
            self.transport.write_eof()
            asyncio.get_running_loop().call_later(LINGER_S, self.transport.close)
        else:
            self.transport.close()
