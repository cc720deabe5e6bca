"""The FastAPI application: ``create_app(settings)`` opens the database (migrating it),
starts the worker pool with the app and stops it, releasing running jobs, on shutdown.
Every request first passes the middleware of ``middleware.py``: the header and body
caps, HEAD for every GET route, and the security headers. With the ``mcp`` extra installed, the MCP
server answers at ``/mcp`` (``deepresearch.mcp.http``).

This package is the service's composition root: it alone holds the Settings, builds the
worker pool and the job checks (``jobs.py``) and hands the request handlers (``routes``,
``state``) the typed groups and the callables they need."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from asyncio import Task
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy import Engine, text
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from deepresearch.compose.gc import collect_every
from deepresearch.embeddings import optional_embedder
from deepresearch.fetch.extract_pool import shutdown_shared_pool
from deepresearch.librarydb.engine import open_library
from deepresearch.librarydb.store import LibraryStore
from deepresearch.service import problems
from deepresearch.service.app.jobs import Runtime, ServerJobChecks, page_texts, worker_pool
from deepresearch.service.db import open_database
from deepresearch.service.library_collections import collections_router
from deepresearch.service.library_routes import library_router
from deepresearch.service.middleware import BodyCap, HeadAsGet, HeaderCap, SecurityHeaders
from deepresearch.service.notify import Notifier
from deepresearch.service.pg_listen import EventListener
from deepresearch.service.problems import MAX_HEAD_BYTES
from deepresearch.service.routes import router
from deepresearch.service.state import ServiceState
from deepresearch.service.store import Clock, JobStore, utcnow
from deepresearch.service.watch_routes import watch_router
from deepresearch.service.watch_scheduler import WatchScheduler
from deepresearch.service.watch_scheduler import start as start_scheduler
from deepresearch.service.web import mount as mount_web_page
from deepresearch.settings import Settings
from deepresearch.settings_groups import ExportSettings, ServiceSettings, StorageSettings
from deepresearch.version import __version__

if TYPE_CHECKING:
    from deepresearch.mcp.http import McpEndpoint

log = logging.getLogger(__name__)


def create_app(
    settings: Settings,
    *,
    runtime: Runtime | None = None,
    engine: Engine | None = None,
    clock: Clock = utcnow,
    start_workers: bool = True,
) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = engine if engine is not None else await run_in_threadpool(open_database, settings)
        store = JobStore(db, clock)
        notifier = Notifier()
        workers = worker_pool(store, settings, notifier, runtime)
        library = await run_in_threadpool(open_library, StorageSettings.of(settings))
        embedder = await run_in_threadpool(optional_embedder)  # hybrid library search
        checks = ServerJobChecks(settings, runtime)
        app.state.service = ServiceState(
            service=ServiceSettings.of(settings),
            export=ExportSettings.of(settings),
            store=store,
            notifier=notifier,
            workers=workers,
            jobs=checks,
            library=LibraryStore(library, embedder=embedder),
        )
        if start_workers and settings.run_workers:
            await workers.start()
        passes = _periodic(settings, store, workers.wake) if start_workers else []
        listener = _listen(db, notifier)
        try:
            async with mcp.running() if mcp is not None else contextlib.nullcontext():
                yield
        finally:
            if listener is not None:
                await run_in_threadpool(listener.stop)
            for task in passes:
                task.cancel()
            await workers.stop()
            await run_in_threadpool(shutdown_shared_pool)  # the extraction processes
            library.dispose()
            if engine is None:
                db.dispose()

    app = FastAPI(
        title="deepresearch",
        version=__version__,
        summary="Durable deep research jobs whose every cited claim traces to a verified quote.",
        lifespan=lifespan,
        # Swagger UI and ReDoc load their scripts from a CDN: nothing here fetches from
        # the internet, so only the OpenAPI document is served
        docs_url=None,
        redoc_url=None,
    )
    # the last added runs first: the header cap, headers on every answer, then HEAD, then
    # the body cap
    app.add_middleware(BodyCap, max_bytes=settings.max_request_bytes)
    app.add_middleware(HeadAsGet)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(HeaderCap, max_bytes=MAX_HEAD_BYTES)
    problems.install(app)
    for routes in (router, library_router, watch_router, collections_router):
        app.include_router(routes)
    mcp = mount_mcp(app, settings)  # the MCP server at /mcp, behind the same keys
    mount_web_page(app)  # the web page at / and its assets under /web/
    _add_probes(app)
    return app


def _add_probes(app: FastAPI) -> None:
    """``/healthz`` (the process is up) and ``/readyz`` (the database answers)."""

    @app.get("/healthz", summary="The process is up")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", summary="The database answers and the workers run")
    async def readyz(request: Request) -> JSONResponse:
        state: ServiceState = request.app.state.service
        try:
            await run_in_threadpool(_ping, state.store.engine)
        except Exception:
            return JSONResponse({"status": "unavailable", "database": "unreachable"}, 503)
        # no counts: the probe needs no key, and how busy the service is tells one key
        # what the others do
        return JSONResponse({"status": "ready"}, 200)


def _listen(db: Engine, notifier: Notifier) -> EventListener | None:
    """On PostgreSQL, the events other processes store wake this process's streams at once
    (``pg_listen.py``); the streams then look at the database less often themselves."""
    if db.dialect.name != "postgresql":
        return None
    listener = EventListener(db.url.render_as_string(hide_password=False), notifier.publish_all)
    notifier.hearing = lambda: listener.listening
    listener.start()
    return listener


def _periodic(settings: Settings, store: JobStore, wake: Callable[[], None]) -> list[Task[None]]:
    """The passes every process runs in turns with the others on the database: storage
    kept bounded (retention), and due watches queued and their change reports written
    (issue 25)."""
    passes = [asyncio.create_task(collect_every(settings, store))]
    scheduler = WatchScheduler(
        store, ServiceSettings.of(settings), wake, pages=page_texts(settings)
    )
    watches = start_scheduler(scheduler)
    return passes if watches is None else [*passes, watches]


def _ping(engine: Engine) -> None:
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))


def mount_mcp(app: FastAPI, settings: Settings) -> McpEndpoint | None:
    """Serve the MCP server at /mcp when its SDK is installed (``deepresearch[mcp]``)."""
    try:
        from deepresearch.mcp.http import PATH, McpEndpoint
    except ImportError:
        log.info("no MCP endpoint: the mcp package is not installed")
        return None
    endpoint = McpEndpoint(settings)
    app.router.routes.append(Route(PATH, endpoint, methods=["GET", "POST", "DELETE"]))
    return endpoint
