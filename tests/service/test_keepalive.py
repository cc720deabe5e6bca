"""Keep-alive connections answer at once (issue 27): every connection the service accepts
has ``TCP_NODELAY``, however it was bound (``deepresearch serve`` binds its own socket, so a
busy port is a usage error; programs embedding the service use ``BackgroundServer``).
Without it each response after the first on a connection waited for the client's delayed
ACK (about 40 ms on Linux); bench/keepalive.py measures that, this checks the cause."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from deepresearch.cli.serve import _bind
from deepresearch.service.app import create_app
from deepresearch.service.server import BackgroundServer
from deepresearch.settings import load_settings

BINDS: dict[str, Callable[[], socket.socket | None]] = {
    "deepresearch serve": lambda: _bind("127.0.0.1", 0),
    "BackgroundServer": lambda: None,
}


@pytest.mark.parametrize("bind", list(BINDS))
def test_every_accepted_connection_sends_small_writes_at_once(bind: str, tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path / "data",
        database_url=f"sqlite:///{tmp_path / 'service.sqlite3'}",
        model="none",
        search="duckduckgo",
    )
    app = create_app(settings, start_workers=False)
    with (
        BackgroundServer(app, listener=BINDS[bind]()) as server,
        httpx.Client(base_url=server.url, timeout=10) as client,
    ):
        for path in ("/healthz", "/v1/queue", "/healthz", "/v1/research", "/healthz"):
            assert client.get(path).status_code == 200
        # one keep-alive connection served them all
        (connection,) = server.server.server_state.connections
        accepted = connection.transport.get_extra_info("socket")
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def test_the_port_refuses_until_the_app_has_started(tmp_path: Path) -> None:
    """``deepresearch serve`` binds first (a busy port is a usage error at once) but the
    socket listens only once the app has started: a client that comes while the app is
    being built is refused at once and can try another API, rather than wait unanswered
    in the backlog (10-14 s on a restarted API in the soak, issue 27)."""
    listener = _bind("127.0.0.1", 0)
    address = listener.getsockname()[:2]
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(address, timeout=5).close()
    settings = load_settings(
        data_dir=tmp_path / "data",
        database_url=f"sqlite:///{tmp_path / 'service.sqlite3'}",
        model="none",
        search="duckduckgo",
    )
    with BackgroundServer(create_app(settings, start_workers=False), listener=listener) as up:
        assert httpx.get(f"{up.url}/healthz", timeout=10).status_code == 200
