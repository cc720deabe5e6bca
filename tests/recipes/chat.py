"""An OpenAI-compatible chat server on loopback that answers the employer recipe's three
prompts (classify, synthesize, judge) like a sloppy model (``employer_script(noisy=True)``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from deepresearch.testing.employer import employer_script

from ..cli.chat_server import ChatServer, _Handler


class _EmployerHandler(_Handler):
    script = staticmethod(employer_script(noisy=True))


@pytest.fixture
def employer_chat_server() -> Iterator[ChatServer]:
    server = ChatServer(("127.0.0.1", 0), _EmployerHandler)
    server.authorizations = []
    server.prompts = []
    server.hold = {}
    server.temperatures = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
