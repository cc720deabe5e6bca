"""An OpenAI-compatible chat server on loopback (``POST /v1/chat/completions``) whose
replies come from the research script: the wire format vLLM, llama.cpp and LM Studio speak.
``refuse`` answers 401 like OpenAI does; ``write_delay_s`` holds the writer's call, and
``hold`` any call whose system prompt starts with one of its keys (seconds).
``temperatures`` records each call's first system line and the temperature it was sent."""

from __future__ import annotations

import json
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
    hold: dict[str, float]
    prompts: list[str]
    temperatures: list[tuple[str, object]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hold = {}  # every fixture's server, this module's or another's


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer
    script = staticmethod(research_script())

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.authorizations.append(self.headers.get("Authorization", ""))
        assert self.path == "/v1/chat/completions"
        if self.server.refuse:  # like OpenAI: 401, and the body echoes part of the key
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
            return
        kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        messages: list[BaseMessage] = [
            kinds[m["role"]](content=m["content"]) for m in body["messages"]
        ]
        first_line = str(messages[0].content).splitlines()[0]
        self.server.prompts.append(first_line)
        self.server.temperatures.append((first_line, body.get("temperature")))
        if str(messages[0].content).startswith(write.SYSTEM.splitlines()[0]):
            time.sleep(self.server.write_delay_s)
        for prefix, seconds in list(self.server.hold.items()):
            if first_line.startswith(prefix):
                time.sleep(seconds)
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
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    server = ChatServer(("127.0.0.1", 0), _Handler)
    server.authorizations = []
    server.prompts = []
    server.hold = {}
    server.temperatures = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
