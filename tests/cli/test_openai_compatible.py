"""A full CLI run against an OpenAI-compatible server on loopback (the wire format vLLM,
llama.cpp and LM Studio speak), whose replies come from the research script. The key sent
to the server never shows up in events, logs or the report."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from deepresearch.testing.research_script import research_script

from .conftest import cli, offline_args

SECRET = "sk-test-0123456789abcdefSECRET"


class _ChatServer(ThreadingHTTPServer):
    authorizations: list[str]
    refuse: bool = False


class _Handler(BaseHTTPRequestHandler):
    server: _ChatServer
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


def _run(web: str, server: _ChatServer, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    return cli(
        "run",
        "If Gallu is a demon Lilu is what?",
        *("--model", "openai:local-model", "--model-base-url", base_url),
        *offline_args(web, "--depth", "quick", "--min-domains", "1", "--json-events"),
        *extra,
        *("--out", str(out)),
        env={"DEEPRESEARCH_MODEL_API_KEY": SECRET},
    )


@pytest.fixture
def chat_server() -> Iterator[_ChatServer]:
    server = _ChatServer(("127.0.0.1", 0), _Handler)
    server.authorizations = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_run_with_an_openai_compatible_server(
    web_process: str, chat_server: _ChatServer, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    done = _run(web_process, chat_server, out, "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["kind"] == "synthesized"
    assert report["usage"]["calls"] >= 4
    assert (
        report["usage"]["input_tokens"] == 100 * report["usage"]["calls"]
    )  # reported, not estimated
    assert chat_server.authorizations and all(
        a == f"Bearer {SECRET}" for a in chat_server.authorizations
    )
    for text in (done.stdout, done.stderr, out.read_text()):
        assert SECRET not in text


def test_refused_key_falls_back_and_never_leaks(
    web_process: str, chat_server: _ChatServer, tmp_path: Path
) -> None:
    chat_server.refuse = True
    out = tmp_path / "r.md"
    done = _run(web_process, chat_server, out)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "Extractive report" in text  # every step fell back
    assert "refused the API key" in text  # and the report says why
    assert len(chat_server.authorizations) == 1  # a refused key is not tried again
    for output in (done.stdout, done.stderr, text):
        assert SECRET not in output
