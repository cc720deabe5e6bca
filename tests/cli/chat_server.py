"""An OpenAI-compatible chat server on loopback (``POST /v1/chat/completions``, ``GET
/v1/models``) whose replies come from the research script: the wire format vLLM, llama.cpp
and LM Studio speak. ``refuse`` answers 401 like OpenAI does; ``write_delay_s`` holds the
writer's call.

``serial`` makes it serve like llama.cpp's server or Ollama: one request at a time, each
taking ``delay_s``, the others queued. A request whose client hung up while it was queued
is counted in ``abandoned`` (llama.cpp logs "disconnected before llm invoked"), as is one
whose client is gone when the answer is written; ``completed`` counts answers delivered."""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from deepresearch.stages import write
from deepresearch.testing.research_script import research_script

SECRET = "sk-test-0123456789abcdefSECRET"


class ChatServer(ThreadingHTTPServer):
    authorizations: list[str]
    refuse: bool = False
    write_delay_s: float = 0.0
    prompts: list[str]
    serial: bool = False
    delay_s: float = 0.0
    completed: int = 0
    abandoned: int = 0
    model_lists: int = 0
    llm: threading.Lock  # held while "the model" works on a request in serial mode
    counts: threading.Lock

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.authorizations, self.prompts = [], []
        self.llm, self.counts = threading.Lock(), threading.Lock()


def _client_gone(connection: socket.socket) -> bool:
    """Whether the client closed its end (readable, and a peek reads end of file)."""
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer
    script = staticmethod(research_script())

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _refuse(self) -> None:
        """Like OpenAI: 401, and the body echoes part of the key."""
        data = json.dumps(
            {
                "error": {
                    "message": f"Incorrect API key provided: {SECRET}",
                    "code": "invalid_api_key",
                }
            }
        ).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        assert self.path == "/v1/models"
        with self.server.counts:
            self.server.model_lists += 1
        self.server.authorizations.append(self.headers.get("Authorization", ""))
        if self.server.refuse:
            self._refuse()
            return
        data = json.dumps(
            {"object": "list", "data": [{"id": "local-model", "object": "model"}]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.authorizations.append(self.headers.get("Authorization", ""))
        assert self.path == "/v1/chat/completions"
        if self.server.refuse:
            self._refuse()
            return
        if not self.server.serial:
            self._answer(body)
            return
        with self.server.llm:
            if _client_gone(self.connection):
                with self.server.counts:
                    self.server.abandoned += 1
                return
            time.sleep(self.server.delay_s)
            self._answer(body)

    def _answer(self, body: dict[str, Any]) -> None:
        kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        messages: list[BaseMessage] = [
            kinds[m["role"]](content=m["content"]) for m in body["messages"]
        ]
        self.server.prompts.append(str(messages[0].content).splitlines()[0])
        if str(messages[0].content).startswith(write.SYSTEM.splitlines()[0]):
            time.sleep(self.server.write_delay_s)
        reply = self.script(messages)
        payload = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }
        data = json.dumps(payload).encode()
        if _client_gone(self.connection):  # it gave up while the answer was being made
            with self.server.counts:
                self.server.abandoned += 1
            return
        with self.server.counts:  # counted before the client can have it: no race
            self.server.completed += 1
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:  # the client gave up while the answer was being made
            with self.server.counts:
                self.server.completed -= 1
                self.server.abandoned += 1


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    server = ChatServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
