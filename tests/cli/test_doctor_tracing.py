"""``deepresearch doctor`` checks LangSmith tracing when the environment turns it on
(issue 28, seed 004's preflight): the key there (never shown) and accepted by the
endpoint, asked as LangSmith's API is (``GET /api/v1/sessions`` with ``X-Api-Key``) of a
loopback server that speaks it. Tracing off: no row, nothing asked."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from .conftest import cli

KEY = "lsv2_pt_0123456789abcdef0123456789abcdef_0123456789"
OFF = {name: "" for name in ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2",
                             "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGSMITH_ENDPOINT",
                             "LANGCHAIN_ENDPOINT")}  # fmt: skip


class LangSmith:
    """A loopback LangSmith: ``/api/v1/sessions`` lists no project for ``KEY``, 401 for
    any other key, as the real API answers."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str | None]] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append((self.path, self.headers.get("X-Api-Key")))
                ok = (
                    self.path.startswith("/api/v1/sessions")
                    and self.headers.get("X-Api-Key") == KEY
                )
                body = json.dumps([] if ok else {"detail": "Invalid token"}).encode()
                self.send_response(200 if ok else 401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def langsmith() -> Iterator[LangSmith]:
    server = LangSmith()
    yield server
    server.server.shutdown()
    server.server.server_close()


def _doctor(env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    done = cli("doctor", "--json", "--model", "none", "--search", "none", env={**OFF, **env})
    checks = {f"{c['area']}: {c['name']}": c for c in json.loads(done.stdout)["checks"]}
    assert KEY not in done.stdout + done.stderr
    return done, checks


def test_tracing_off_is_not_checked(langsmith: LangSmith) -> None:
    done, checks = _doctor({"LANGSMITH_ENDPOINT": langsmith.url, "LANGSMITH_API_KEY": KEY})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tracing: langsmith" not in checks and langsmith.requests == []


def test_tracing_on_with_an_accepted_key(langsmith: LangSmith) -> None:
    done, checks = _doctor(
        {"LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": langsmith.url, "LANGSMITH_API_KEY": KEY}
    )
    assert done.returncode == 0, done.stdout + done.stderr
    row = checks["tracing: langsmith"]
    assert row["ok"] is True and "LANGSMITH_API_KEY (environment)" in row["detail"]
    assert langsmith.requests == [("/api/v1/sessions?limit=1", KEY)]


def test_tracing_on_without_a_key_fails_saying_what_to_set(langsmith: LangSmith) -> None:
    done, checks = _doctor({"LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": langsmith.url})
    assert done.returncode == 1
    row = checks["tracing: langsmith"]
    assert row["ok"] is False and "no API key" in row["detail"]
    assert "LANGSMITH_API_KEY" in row["fix"] and langsmith.requests == []


def test_a_refused_key_fails_and_is_never_shown(langsmith: LangSmith) -> None:
    wrong = "lsv2_pt_ffffffffffffffffffffffffffffffff_ffffffffff"
    done, checks = _doctor(
        {
            "LANGCHAIN_TRACING_V2": "true",
            "LANGCHAIN_ENDPOINT": langsmith.url,
            "LANGCHAIN_API_KEY": wrong,
        }
    )
    assert done.returncode == 1 and wrong not in done.stdout + done.stderr
    row = checks["tracing: langsmith"]
    assert row["ok"] is False and "refused the key (HTTP 401)" in row["detail"]
    assert langsmith.requests == [("/api/v1/sessions?limit=1", wrong)]


def test_an_endpoint_that_does_not_answer_fails(langsmith: LangSmith) -> None:
    url = langsmith.url
    langsmith.server.shutdown()
    langsmith.server.server_close()
    done, checks = _doctor(
        {"LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": url, "LANGSMITH_API_KEY": KEY}
    )
    assert done.returncode == 1
    row = checks["tracing: langsmith"]
    assert row["ok"] is False and "LANGSMITH_ENDPOINT" in row["fix"]
