"""An OpenAI-compatible chat server on loopback (``POST /v1/chat/completions``, ``GET
/v1/models``) whose replies come from the research script: the wire format vLLM, llama.cpp
and LM Studio speak. ``refuse`` answers 401 like OpenAI does, ``no_chat`` 404 to every
chat call (the model list still answers); ``write_delay_s`` holds the
writer's call, and ``hold`` any call whose system prompt starts with one of its keys
(seconds). ``temperatures`` records each call's first system line and the temperature it
was sent.

``serial`` makes it serve like llama.cpp's server or Ollama: one request at a time, each
taking ``delay_s`` to generate (``slow_s`` for one whose last message holds ``[slow]``),
the others queued. A request whose client hung up while it was queued is counted in
``abandoned`` (llama.cpp logs "disconnected before llm invoked"), as is a non-streamed one
whose client is gone when the answer is ready (it was generated to the end anyway); a
streamed one (``"stream": true``) stops as soon as its client is gone (``stopped``).
``completed`` counts answers delivered. Not serial, every call takes ``latency_s``
(default 0), any number at once, like a hosted API."""

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

from deepresearch.recipes.research.stages import write
from deepresearch.testing.research_script import research_script

SECRET = "sk-test-0123456789abcdefSECRET"
#: a key of ``hold`` that holds the model listing (``GET /v1/models``: a run's preflight)
MODELS_LIST = "GET /v1/models"
SLOW = "[slow]"  # in serial mode, a request whose last message holds this takes slow_s
USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}


class ChatServer(ThreadingHTTPServer):
    authorizations: list[str]
    refuse: bool = False
    no_chat: bool = False  # the model list answers, every chat call is a 404
    write_delay_s: float = 0.0
    prompts: list[str]
    hold: dict[str, float]
    temperatures: list[tuple[str, object]]
    serial: bool = False
    delay_s: float = 0.0
    slow_s: float = 0.0
    latency_s: float = 0.0  # not serial: every call takes this long, calls overlapping
    completed: int = 0
    abandoned: int = 0
    stopped: int = 0
    model_lists: int = 0
    llm: threading.Lock  # held while "the model" works on a request in serial mode
    counts: threading.Lock

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.authorizations, self.prompts = [], []
        self.hold, self.temperatures = {}, []  # every fixture's server, this module's or another's
        self.llm, self.counts = threading.Lock(), threading.Lock()
        self.model_names: list[tuple[str, str]] = []  # (first system line, model asked for)


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

    def _no_such_model(self) -> None:
        """Like OpenAI for a model it does not serve: 404."""
        data = json.dumps(
            {"error": {"message": "The model does not exist", "code": "model_not_found"}}
        ).encode()
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

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
        time.sleep(self.server.hold.get(MODELS_LIST, 0))  # a run's preflight, held
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
        if self.server.no_chat:
            self._no_such_model()
            return
        if not self.server.serial:
            self._answer(body, generation_s=self.server.latency_s)
            return
        with self.server.llm:
            if _client_gone(self.connection):  # "disconnected before llm invoked"
                self._count("abandoned")
                return
            last = str(body["messages"][-1]["content"])
            self._answer(
                body, generation_s=self.server.slow_s if SLOW in last else self.server.delay_s
            )

    def _count(self, name: str, by: int = 1) -> None:
        with self.server.counts:
            setattr(self.server, name, getattr(self.server, name) + by)

    def _answer(self, body: dict[str, Any], *, generation_s: float) -> None:
        kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        messages: list[BaseMessage] = [
            kinds[m["role"]](content=m["content"]) for m in body["messages"]
        ]
        first_line = str(messages[0].content).splitlines()[0]
        self.server.prompts.append(first_line)
        self.server.temperatures.append((first_line, body.get("temperature")))
        self.server.model_names.append((first_line, str(body.get("model"))))
        if str(messages[0].content).startswith(write.SYSTEM.splitlines()[0]):
            time.sleep(self.server.write_delay_s)
        for prefix, seconds in list(self.server.hold.items()):
            if first_line.startswith(prefix):
                time.sleep(seconds)
        reply = self.script(messages)
        if body.get("stream"):
            self._stream(body["model"], reply, generation_s)
            return
        time.sleep(generation_s)  # generated to the end, whether the client waits or not
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
            "usage": USAGE,
        }
        data = json.dumps(payload).encode()
        if _client_gone(self.connection):  # it gave up while the answer was being made
            self._count("abandoned")
            return
        self._count("completed")  # counted before the client can have it: no race
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:  # the client gave up while the answer was being made
            self._count("completed", -1)
            self._count("abandoned")

    def _generate(self, seconds: float) -> bool:
        """Spend ``seconds`` "generating", token by token (50 ms each), looking for a
        client that hung up between tokens; False when it did."""
        deadline = time.monotonic() + seconds
        while True:
            if _client_gone(self.connection):
                return False
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            time.sleep(min(0.05, left))

    def _stream(self, model: str, reply: str, generation_s: float) -> None:
        """Server-sent chunks, like llama.cpp: between tokens the server notices a client
        that hung up and stops generating (``stopped``)."""

        def chunk(delta: dict[str, str], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [choice],
            }

        pieces = [reply[i : i + 40] for i in range(0, len(reply), 40)] or [""]
        events = [chunk({"role": "assistant", "content": ""})]
        events += [chunk({"content": piece}) for piece in pieces]
        events.append(chunk({}, "stop"))
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for number, event in enumerate(events):
                share = generation_s / len(pieces) if 0 < number <= len(pieces) else 0.0
                if not self._generate(share):
                    self._count("stopped")
                    return
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            usage = {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [],
                "usage": USAGE,
            }
            self.wfile.write(f"data: {json.dumps(usage)}\n\n".encode())
            self._count("completed")
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except OSError:
            self._count("stopped")


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    server = ChatServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
