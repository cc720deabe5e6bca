"""A scripted HTTP server on 127.0.0.1 speaking the providers' wire formats.

Real LangChain provider classes (ChatOpenAI, ChatAnthropic, ChatOllama) are pointed at it
with ``base_url``, so the tests exercise the real SDK clients, their error types and
their usage parsing, without any network beyond loopback.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Scripted:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


class FakeServer:
    """Answers requests from a queue of scripted responses and records what it got."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._queue: list[Scripted] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_port}"

    def reply_json(
        self, payload: Any, *, status: int = 200, headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self._push(Scripted(status, data, {"Content-Type": "application/json", **(headers or {})}))

    def reply_ndjson(self, lines: list[dict[str, Any]]) -> None:
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        self._push(Scripted(200, data, {"Content-Type": "application/x-ndjson"}))

    def reply_openai(
        self, text: str, *, prompt_tokens: int = 11, completion_tokens: int = 7
    ) -> None:
        self.reply_json(
            openai_completion(
                text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
            )
        )

    def reply_openai_error(
        self, status: int, message: str, *, kind: str, headers: dict[str, str] | None = None
    ) -> None:
        self.reply_json(openai_error(message, kind=kind), status=status, headers=headers)

    def reply_anthropic(self, text: str, *, input_tokens: int = 13, output_tokens: int = 5) -> None:
        self.reply_json(
            anthropic_message(text, input_tokens=input_tokens, output_tokens=output_tokens)
        )

    def reply_ollama(self, text: str, *, prompt_eval_count: int = 17, eval_count: int = 9) -> None:
        self.reply_ndjson(
            ollama_chat_stream(text, prompt_eval_count=prompt_eval_count, eval_count=eval_count)
        )

    def _push(self, scripted: Scripted) -> None:
        with self._lock:
            self._queue.append(scripted)

    def next_response(self) -> Scripted:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
        body = json.dumps({"error": {"message": "no scripted response left"}}).encode()
        return Scripted(500, body, {"Content-Type": "application/json"})

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler_for(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode(errors="replace")
            server.requests.append(
                Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            scripted = server.next_response()
            if isinstance(body, dict) and body.get("stream") and scripted.status == 200:
                scripted = as_event_stream(scripted)
            self.send_response(scripted.status)
            for name, value in scripted.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(scripted.body)))
            self.end_headers()
            self.wfile.write(scripted.body)

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    server = FakeServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


# wire formats ----------------------------------------------------------------------------
def as_event_stream(scripted: Scripted) -> Scripted:
    """A Chat Completions answer as the server-sent chunks a streamed request gets
    (deepresearch streams from OpenAI-compatible servers): the message, then its usage in
    a last chunk with no choices, as OpenAI sends it."""
    if scripted.headers.get("Content-Type") != "application/json":
        return scripted  # Ollama's own NDJSON stream, say
    payload = json.loads(scripted.body)
    if payload.get("object") != "chat.completion":
        return scripted
    choice = payload["choices"][0]
    base = {key: payload[key] for key in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    events = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
        {**base, "choices": [{"index": 0, "delta": {"content": choice["message"]["content"]}}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {**base, "choices": [], "usage": payload["usage"]},
    ]
    data = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    headers = {**scripted.headers, "Content-Type": "text/event-stream"}
    return Scripted(200, data.encode(), headers)


def openai_completion(
    text: str, *, prompt_tokens: int = 11, completion_tokens: int = 7, model: str = "local"
) -> dict[str, Any]:
    """An OpenAI Chat Completions response (``POST /v1/chat/completions``)."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def openai_error(message: str, *, kind: str, code: str | None = None) -> dict[str, Any]:
    """An OpenAI error body."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def anthropic_message(
    text: str, *, input_tokens: int = 13, output_tokens: int = 5, model: str = "claude-test"
) -> dict[str, Any]:
    """An Anthropic Messages response (``POST /v1/messages``)."""
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def ollama_chat_stream(
    text: str, *, prompt_eval_count: int = 17, eval_count: int = 9, model: str = "llama3.2:3b"
) -> list[dict[str, Any]]:
    """Ollama ``POST /api/chat`` streamed as NDJSON: content chunks, then a ``done`` line."""
    created = "2025-01-01T00:00:00Z"
    half = len(text) // 2
    chunks = [text[:half], text[half:]]
    lines: list[dict[str, Any]] = [
        {
            "model": model,
            "created_at": created,
            "message": {"role": "assistant", "content": chunk},
            "done": False,
        }
        for chunk in chunks
    ]
    lines.append(
        {
            "model": model,
            "created_at": created,
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "total_duration": 1_000_000,
            "load_duration": 1_000,
            "prompt_eval_count": prompt_eval_count,
            "prompt_eval_duration": 100_000,
            "eval_count": eval_count,
            "eval_duration": 500_000,
        }
    )
    return lines
