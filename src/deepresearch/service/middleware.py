"""ASGI middleware that every request passes, before routing, authentication or parsing:

* ``HeaderCap`` refuses a request whose head (request line and headers) is over
  ``MAX_HEAD_BYTES`` with a 431 problem (a head still arriving past it is refused by
  ``http11.py`` in the same words: the limit does not depend on how the bytes arrive).
* ``BodyCap`` refuses a body over ``max_request_bytes``: at once when its
  ``Content-Length`` says so, without reading a byte of it; otherwise (chunked) as soon
  as the bytes read pass the cap. The answer is a 413 problem that closes the connection,
  so the rest is never received. (FastAPI's own ``max_body_size`` answers a declared
  oversize body with a plain-text 413 in place of whatever the app answers, outside our
  problem documents and headers, and keeps the connection open to drain the upload.)
* ``HeadAsGet`` answers ``HEAD`` on every ``GET`` route: the ``GET`` runs, its headers
  are sent, its body is not (a stream is told the client left as soon as it starts).
* ``SecurityHeaders`` gives every response ``nosniff``, a deny-all Content-Security-Policy,
  ``no-referrer`` and ``DENY`` framing, unless the response set its own (the web page and
  the HTML report do).
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from deepresearch.service.problems import (
    SECURITY_HEADERS,
    head_too_large,
    problem_document,
    too_large,
)


def head_size(scope: Scope) -> int:
    """About the size of the request's head as it was sent: request line and headers."""
    line = len(scope["method"]) + len(scope.get("raw_path") or b"") + len(scope["query_string"])
    return line + 12 + sum(len(name) + len(value) + 4 for name, value in scope["headers"])


class HeaderCap:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and head_size(scope) > self.max_bytes:
            path = str(scope.get("path", ""))
            detail = head_too_large(self.max_bytes)
            refusal = problem_document(431, detail, instance=path, kind="header-too-large")
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once a body passes the cap. An HTTPException, so FastAPI
    lets it through its body parsing to the problem handler (any other error there
    becomes "400 error parsing the body")."""

    def __init__(self) -> None:
        super().__init__(413, "the request body is too large")


class BodyCap:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        # the server has already refused a length that is not a number
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge()
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge:
            if not started:  # read outside FastAPI's body parsing: answer here
                await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        response = problem_document(413, too_large(self.max_bytes), instance=path, kind="too-large")
        await response(scope, receive, send)


class HeadAsGet:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        started = False

        async def headers_only(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                await send(message)
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            # the body is dropped: HEAD sends none, whatever the server does

        async def gone_once_started() -> Message:
            if started:  # ends a streaming response as soon as its headers are out
                return {"type": "http.disconnect"}
            return await receive()

        # a copy: the server's own scope still says HEAD
        await self.app({**scope, "method": "GET"}, gone_once_started, headers_only)


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, with_headers)
