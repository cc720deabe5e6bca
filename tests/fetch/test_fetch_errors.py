"""Fetch errors are short and safe to show; the details go to the DEBUG log only."""

from __future__ import annotations

import logging
import socket
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.debuglog import LOGGER_NAME, fetch_debug_log
from deepresearch.fetch.http_fetcher import HttpFetcher
from deepresearch.settings import load_settings

from .netstub import LoopServer, RoutingBackend, StubResolver, canary, send

INTERNAL = "10.1.2.3"
PUBLIC = "93.184.216.34"


def _fetcher(resolver: StubResolver, backend: RoutingBackend | None = None) -> HttpFetcher:
    return HttpFetcher(
        resolver=resolver,
        respect_robots=False,
        min_interval_s=0,
        max_retries=0,
        network_backend=backend,
    )


def _redirect_to_internal(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 302, b"", {"Location": "http://intranet.example/"})


@pytest.mark.parametrize(
    "url",
    [
        "http://intranet.example/",  # resolves to the internal address
        f"http://{INTERNAL}/",
        "http://mixed.example/",
        "http://public.example/",  # redirects to intranet.example
    ],
)
async def test_a_refused_internal_address_is_not_in_the_message(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    resolver = StubResolver(
        {
            "intranet.example": [INTERNAL],
            "mixed.example": [PUBLIC, INTERNAL],
            "public.example": [PUBLIC],
        }
    )
    caplog.set_level(logging.DEBUG, logger=LOGGER_NAME)
    with LoopServer(_redirect_to_internal) as site, canary() as bird:
        backend = RoutingBackend({PUBLIC: site.route}, default=bird.route)
        async with _fetcher(resolver, backend) as fetcher:
            with pytest.raises(FetchBlocked) as info:
                await fetcher.fetch(url)
    message = str(info.value)
    assert INTERNAL not in message
    assert PUBLIC not in message
    assert "non-public address" in message
    assert bird.hits == 0
    assert INTERNAL in caplog.text  # the details are in the DEBUG log


async def test_a_connection_failure_is_generic_and_logged_in_detail(
    caplog: pytest.LogCaptureFixture,
) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = int(closed.getsockname()[1])
    closed.close()
    caplog.set_level(logging.DEBUG, logger=LOGGER_NAME)
    resolver = StubResolver({"down.example": [PUBLIC]})
    backend = RoutingBackend({PUBLIC: ("127.0.0.1", port)})
    async with _fetcher(resolver, backend) as fetcher:
        with pytest.raises(FetchError) as info:
            await fetcher.fetch("http://down.example/")
    assert str(info.value) == "network error while fetching URL"
    assert "ConnectError" in caplog.text  # the exception's repr, at DEBUG only
    assert "Errno" not in str(info.value)


async def test_server_bodies_never_reach_the_message() -> None:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        send(handler, 500, b"<p>stack trace at 10.9.9.9: secret</p>")

    resolver = StubResolver({"broken.example": [PUBLIC]})
    with LoopServer(handle) as site:
        async with _fetcher(resolver, RoutingBackend({PUBLIC: site.route})) as fetcher:
            with pytest.raises(FetchError) as info:
                await fetcher.fetch("http://broken.example/")
    assert str(info.value) == "remote server returned HTTP 500"


async def test_the_debug_log_file_gets_the_details(tmp_path: Path) -> None:
    log_file = tmp_path / "logs" / "fetch-debug.log"
    logger = logging.getLogger(LOGGER_NAME)
    level = logger.level
    resolver = StubResolver({"intranet.example": [INTERNAL]})
    with fetch_debug_log(log_file):
        async with _fetcher(resolver) as fetcher:
            with pytest.raises(FetchBlocked) as info:
                await fetcher.fetch("http://intranet.example/")
    assert INTERNAL not in str(info.value)
    text = log_file.read_text()
    assert INTERNAL in text
    assert "intranet.example" in text
    assert logger.level == level
    assert not any(
        isinstance(h, logging.FileHandler) and h.baseFilename == str(log_file)
        for h in logger.handlers
    )


def test_overlapping_debug_logs_keep_the_level_until_the_last_ends(tmp_path: Path) -> None:
    logger = logging.getLogger(LOGGER_NAME)
    level = logger.level
    with fetch_debug_log(tmp_path / "a.log"):
        with fetch_debug_log(tmp_path / "b.log"):
            logger.debug("both")
        logger.debug("only a")
        assert logger.isEnabledFor(logging.DEBUG)
    assert logger.level == level
    assert (tmp_path / "a.log").read_text().count("\n") == 2
    assert "only a" not in (tmp_path / "b.log").read_text()


def test_debug_log_is_a_setting(tmp_path: Path) -> None:
    assert load_settings().debug_log is None
    assert load_settings(debug_log=tmp_path / "d.log").debug_log == tmp_path / "d.log"
