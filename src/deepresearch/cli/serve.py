"""``deepresearch serve``: the HTTP API with its worker pool (see docs/service.md), or the
API alone (``--no-workers``) beside ``deepresearch worker`` processes (docs/operations.md)."""

from __future__ import annotations

import errno
import ipaddress
import logging
import socket
from typing import TYPE_CHECKING, Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import EXIT_FAILED, error, fail, settings_from, use_config_file
from deepresearch.errors import DeepResearchError

if TYPE_CHECKING:  # FastAPI, uvicorn and SQLAlchemy load when serving, not for --help
    import uvicorn
    from sqlalchemy import Engine

    from deepresearch.settings import Settings


@options.with_backends(roles=False)
def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind (default 127.0.0.1).")] = None,
    port: Annotated[
        int | None, typer.Option(help="Port (default 8000; 0 picks a free one).")
    ] = None,
    database_url: options.DatabaseUrl = None,
    max_concurrent_jobs: Annotated[int | None, typer.Option(help="Runs at once.")] = None,
    workers: Annotated[
        bool | None,
        typer.Option(
            "--workers/--no-workers",
            help="Run jobs in this process (default), or serve the API only while "
            "'deepresearch worker' processes run them.",
        ),
    ] = None,
    allow_host: options.AllowHost = None,
    backends: options.Backends = options.NOT_GIVEN,
    config: options.Config = None,
) -> None:
    """Serve the research API: submit jobs, watch them live, fetch reports."""
    from deepresearch.service.db import open_database
    from deepresearch.service.store import JobStore

    use_config_file(config)
    overrides: dict[str, Any] = {
        "serve_host": host,
        "serve_port": port,
        "database_url": database_url,
        "max_concurrent_jobs": max_concurrent_jobs,
        "run_workers": workers,
        **backends.overrides(allow_host),
    }
    settings = settings_from(overrides)
    try:
        engine = open_database(settings)
        keys = JobStore(engine).has_keys()
    except DeepResearchError as exc:
        fail(exc)
    if not keys and not _is_loopback(settings.serve_host):
        error(
            f"no API keys exist, so the service may only bind to loopback, "
            f"not {settings.serve_host}",
            "create one with 'deepresearch keys create NAME' first",
        )
    listener = _bind(settings.serve_host, settings.serve_port)
    if not keys:
        typer.echo(
            "no API keys: anyone on this machine can use the service; it listens on "
            f"{settings.serve_host} only ('deepresearch keys create NAME' to require keys)",
            err=True,
        )
    _run(settings, engine, listener)


def _run(settings: Settings, engine: Engine, listener: socket.socket) -> None:
    """Serve the API on ``listener`` until stopped; exit 1 if it never started."""
    import uvicorn

    from deepresearch.service.app import create_app
    from deepresearch.service.server import uvicorn_config

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_app(settings, engine=engine)
    config_ = uvicorn_config(
        app,
        host=settings.serve_host,
        port=settings.serve_port,
        log_level="info",
        timeout_graceful_shutdown=20,
        proxy_headers=False,
    )
    server = uvicorn.Server(config_)
    _announce(server)
    try:
        server.run(sockets=[listener])
    except SystemExit:  # uvicorn exits 3 when startup fails; 3 means something else here
        pass
    finally:
        listener.close()
        engine.dispose()
    if not server.started:
        error("the service did not start; see the log above", code=EXIT_FAILED)


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound here rather than by uvicorn, so a busy port or an
    address this machine does not have is a clear usage error (exit 2), not a log line."""
    from deepresearch.service.server import bind

    try:
        return bind(host, port)
    except OSError as exc:
        hint = "choose another --port (0 picks a free one), or stop what is listening there"
        if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
            hint = "check --host (DEEPRESEARCH_SERVE_HOST): it must be an address of this machine"
        error(f"cannot listen on {host}:{port}: {exc.strerror or exc}", hint)


def _announce(server: uvicorn.Server) -> None:
    """Print the bound URL once listening (port 0 picks one), for scripts and tests."""
    original = server.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets)
        for listener in server.servers:
            for sock in listener.sockets:
                host, port = sock.getsockname()[:2]
                typer.echo(f"deepresearch serving on http://{host}:{port}", err=True)

    server.startup = startup  # type: ignore[method-assign]


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
