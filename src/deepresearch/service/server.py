"""Running the app with uvicorn: in the foreground (``deepresearch serve``) or in a
background thread (tests, benchmarks, programs embedding the service)."""

from __future__ import annotations

import asyncio
import threading
import time
from types import TracebackType

import uvicorn
from fastapi import FastAPI


class BackgroundServer:
    """``with BackgroundServer(app) as server: server.url`` — uvicorn on a free loopback
    port in a daemon thread, stopped (gracefully, like SIGTERM) on exit."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=10,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, daemon=True, name="deepresearch-serve")
        self.url = ""

    def _run(self) -> None:
        asyncio.run(self.server.serve())

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the service did not start")
            time.sleep(0.02)
        (sock,) = [s for server in self.server.servers for s in server.sockets][:1]
        host, port = sock.getsockname()[:2]
        self.url = f"http://{host}:{port}"
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
