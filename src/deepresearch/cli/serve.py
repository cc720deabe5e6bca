"""``deepresearch serve``: the HTTP API with its worker pool (see docs/service.md)."""

from __future__ import annotations

import ipaddress
import logging
from typing import Annotated, Any

import typer
import uvicorn

from deepresearch.cli import options
from deepresearch.cli.common import EXIT_USAGE, fail, settings_from, use_config_file
from deepresearch.errors import DeepResearchError
from deepresearch.service.app import create_app
from deepresearch.service.db import open_database
from deepresearch.service.store import JobStore


def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind (default 127.0.0.1).")] = None,
    port: Annotated[
        int | None, typer.Option(help="Port (default 8000; 0 picks a free one).")
    ] = None,
    database_url: Annotated[
        str | None, typer.Option(help="sqlite:///PATH or postgresql+psycopg://... URL.")
    ] = None,
    max_concurrent_jobs: Annotated[int | None, typer.Option(help="Runs at once.")] = None,
    allow_host: options.AllowHost = None,
    model: options.Model = None,
    model_base_url: options.ModelBaseUrl = None,
    search: options.Search = None,
    searxng_url: options.SearxngUrl = None,
    corpus: options.Corpus = None,
    config: options.Config = None,
) -> None:
    """Serve the research API: submit jobs, watch them live, fetch reports."""
    use_config_file(config)
    overrides: dict[str, Any] = {
        "serve_host": host,
        "serve_port": port,
        "database_url": database_url,
        "max_concurrent_jobs": max_concurrent_jobs,
        **options.model_and_search_overrides(
            model=model,
            model_base_url=model_base_url,
            search=search,
            searxng_url=searxng_url,
            corpus=corpus,
            allow_host=allow_host,
        ),
    }
    settings = settings_from(overrides)
    try:
        engine = open_database(settings)
        keys = JobStore(engine).has_keys()
    except DeepResearchError as exc:
        fail(exc)
    if not keys and not _is_loopback(settings.serve_host):
        typer.echo(
            f"error: no API keys exist, so the service may only bind to loopback, "
            f"not {settings.serve_host}",
            err=True,
        )
        typer.echo("hint: create one with 'deepresearch keys create NAME' first", err=True)
        raise typer.Exit(EXIT_USAGE)
    if not keys:
        typer.echo(
            "no API keys: anyone on this machine can use the service; it listens on "
            f"{settings.serve_host} only ('deepresearch keys create NAME' to require keys)",
            err=True,
        )
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_app(settings, engine=engine)
    config_ = uvicorn.Config(
        app,
        host=settings.serve_host,
        port=settings.serve_port,
        log_level="info",
        timeout_graceful_shutdown=20,
        proxy_headers=False,
    )
    server = uvicorn.Server(config_)
    _announce(server)
    server.run()
    engine.dispose()


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
