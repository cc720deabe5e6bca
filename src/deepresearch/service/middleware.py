"""ASGI middleware that every request passes, before routing, authentication or parsing:

* ``DeclaredSizeGuard`` refuses a body whose ``Content-Length`` is over the cap at once,
  without reading a byte of it, and closes the connection so the rest is never received.
  Bodies without a length (chunked) are counted as they are read by FastAPI's own
  ``max_body_size`` limit (set in ``create_app``), which answers 413 the same way.
* ``HeadAsGet`` answers ``HEAD`` on every ``GET`` route: the ``GET`` runs, its headers
  are sent, its body is not (a stream is told the client left as soon as it starts).
* ``SecurityHeaders`` gives every response ``nosniff``, a deny-all Content-Security-Policy,
  ``no-referrer`` and ``DENY`` framing, unless the response set its own (the web page and
  the HTML report do).
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from deepresearch.service.problems import SECURITY_HEADERS, problem_document, too_large


class DeclaredSizeGuard:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            declared = Headers(scope=scope).get("content-length", "")
            # the server has already refused a length that is not a number
            if declared.isdigit() and int(declared) > self.max_bytes:
                path = str(scope.get("path", ""))
                response = problem_document(
                    413, too_large(self.max_bytes), instance=path, kind="too-large"
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


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
