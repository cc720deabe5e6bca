"""Running the app with uvicorn: in the foreground (``deepresearch serve``) or in a
background thread (tests, benchmarks, programs embedding the service). Both listen on a
socket made by :func:`bind` and serve with :func:`uvicorn_config`, so every way the
service runs answers the same at the socket and HTTP level."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn
from fastapi import FastAPI

from deepresearch.service.http11 import ProblemH11Protocol
from deepresearch.service.problems import MAX_HEAD_BYTES


def bind(host: str, port: int) -> socket.socket:
    """The service's socket, bound to ``host:port`` (port 0 picks a free one) but not yet
    listening; ``OSError`` when it cannot be bound. A host name binds to what it resolves
    to first.

    Not listening: until the app has started (uvicorn runs the lifespan first, then
    asyncio's ``create_server`` listens on it), a client that connects is refused at once
    and can try another API, rather than wait in the kernel's backlog for an app still
    being built (10-14 s on a restarted API under load, issue 27).

    The socket names its protocol (``IPPROTO_TCP``): asyncio sets ``TCP_NODELAY`` only on
    connections accepted from such a socket. Without it a small response waits for the
    client's delayed ACK of the one before, so every request after the first on a
    keep-alive connection took about 40 ms more."""
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        family = socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        # as socket.create_server does: a restart may bind while old connections linger
        # in TIME_WAIT; an IPv6 socket serves IPv6 only
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def uvicorn_config(app: FastAPI, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for the service: ``options`` as uvicorn takes them, with the
    HTTP protocol that answers what it cannot parse (a head over ``MAX_HEAD_BYTES``, a
    malformed request) with problem details (``http11.py``)."""
    return uvicorn.Config(
        app, http=ProblemH11Protocol, h11_max_incomplete_event_size=MAX_HEAD_BYTES, **options
    )


class BackgroundServer:
    """``with BackgroundServer(app) as server: server.url`` — uvicorn on a free loopback
    port (or on ``listener``, a socket already bound: :func:`bind`) in a daemon thread, stopped
    (gracefully, like SIGTERM) on exit."""

    def __init__(
        self,
        app: FastAPI,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        listener: socket.socket | None = None,
    ) -> None:
        config = uvicorn_config(
            app, log_level="warning", lifespan="on", timeout_graceful_shutdown=10
        )
        self.server = uvicorn.Server(config)
        self.listener = listener if listener is not None else bind(host, port)
        self.thread = threading.Thread(target=self._run, daemon=True, name="deepresearch-serve")
        host, port = self.listener.getsockname()[:2]
        self.url = f"http://{host}:{port}"

    def _run(self) -> None:
        asyncio.run(self.server.serve(sockets=[self.listener]))

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.listener.close()
                raise RuntimeError("the service did not start")
            time.sleep(0.02)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.listener.close()
