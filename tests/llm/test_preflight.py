"""The preflight finds a model endpoint that cannot be used before the run starts: nothing
listening, a refused key, an Ollama without the model. It stops the run with a
ConfigError (exit 2 in the CLI), or, when the user asked for it, takes the model away
from the roles that need that endpoint and says so. Keys never appear in its messages."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from deepresearch.errors import ConfigError
from deepresearch.llm import Gateway
from deepresearch.llm import preflight as preflight_module
from deepresearch.llm.preflight import HOSTED_CHECKS, preflight, require_models
from deepresearch.settings import Settings, load_settings
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES

from ..cli.chat_server import SECRET, ChatServer, chat_server  # noqa: F401 (fixture)


class _Site(ThreadingHTTPServer):
    routes: dict[str, tuple[int, Any]]
    delay_s: float = 0.0
    seen: list[tuple[str, dict[str, str]]]


class _Handler(BaseHTTPRequestHandler):
    server: _Site

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.seen.append((self.path, dict(self.headers.items())))
        time.sleep(self.server.delay_s)
        status, payload = self.server.routes.get(self.path, (404, {"error": "not found"}))
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def site() -> Iterator[_Site]:
    server = _Site(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.routes, server.seen = {}, []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def url_of(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def compatible(base_url: str, tmp_path: Path, **extra: Any) -> Settings:
    return load_settings(
        model="openai:local-model",
        model_base_url=base_url,
        model_api_key=SECRET,
        data_dir=tmp_path,
        **extra,
    )


async def test_nothing_listening_stops_the_run(tmp_path: Path) -> None:
    port = closed_port()
    settings = compatible(f"http://127.0.0.1:{port}/v1", tmp_path)
    with pytest.raises(ConfigError) as caught:
        await require_models(
            ModelSettings.of(settings),
            Gateway.from_settings(ModelSettings.of(settings), secrets=settings.secrets()),
        )
    error = caught.value
    assert f"127.0.0.1:{port}" in error.message and "cannot be reached" in error.message
    assert "planner" in error.message and "judge" in error.message  # who needed it
    assert "--model none" in error.hint and "on_model_unavailable" in error.hint
    assert SECRET not in str(error)


async def test_a_server_that_answers_passes(chat_server: ChatServer, tmp_path: Path) -> None:  # noqa: F811
    settings = compatible(f"{url_of(chat_server)}/v1", tmp_path)
    assert await preflight(ModelSettings.of(settings)) == []
    assert chat_server.model_lists == 1  # one cheap GET /v1/models for all five roles
    assert chat_server.authorizations == [f"Bearer {SECRET}"]
    assert chat_server.prompts == []  # no chat call was spent on it


async def test_a_refused_key_is_found_and_never_shown(
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    chat_server.refuse = True  # 401, and the body echoes the key
    settings = compatible(f"{url_of(chat_server)}/v1", tmp_path)
    with pytest.raises(ConfigError) as caught:
        await require_models(
            ModelSettings.of(settings),
            Gateway.from_settings(ModelSettings.of(settings), secrets=settings.secrets()),
        )
    assert "refused the API key (HTTP 401)" in caught.value.message
    assert SECRET not in str(caught.value)


async def test_fallback_only_when_asked(tmp_path: Path) -> None:
    port = closed_port()
    settings = compatible(
        f"http://127.0.0.1:{port}/v1", tmp_path, on_model_unavailable="extractive"
    )
    gateway = Gateway.from_settings(ModelSettings.of(settings), secrets=settings.secrets())
    problems = await require_models(ModelSettings.of(settings), gateway)
    assert [problem.endpoint.label for problem in problems] == [f"127.0.0.1:{port}"]
    assert not any(gateway.has_model(role) for role in ROLES)
    assert any("cannot be reached" in e and "deterministic fallbacks" in e for e in gateway.errors)


async def test_a_slow_but_listening_server_counts_as_there(
    site: _Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local server busy with another client's request is still there."""
    monkeypatch.setattr(preflight_module, "ANSWER_TIMEOUT_S", 0.2)
    site.delay_s = 1.0
    assert await preflight(ModelSettings.of(compatible(f"{url_of(site)}/v1", tmp_path))) == []


async def test_ollama_lists_the_pulled_models(
    site: _Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site.routes["/api/tags"] = (
        200,
        {"models": [{"name": "llama3.2:latest"}, {"name": "qwen2.5:7b"}]},
    )
    monkeypatch.setenv("OLLAMA_HOST", url_of(site).removeprefix("http://"))
    ok = load_settings(model="ollama:llama3.2", judge_model="ollama:qwen2.5:7b", data_dir=tmp_path)
    assert await preflight(ModelSettings.of(ok)) == []
    missing = load_settings(model="ollama:llama3.1", data_dir=tmp_path)
    (problem,) = await preflight(ModelSettings.of(missing))
    assert "has no model llama3.1" in problem.reason and "ollama pull llama3.1" in problem.reason
    assert [path for path, _ in site.seen] == ["/api/tags", "/api/tags"]


async def test_ollama_not_running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{closed_port()}")
    settings = load_settings(model="ollama:llama3.2", data_dir=tmp_path)
    with pytest.raises(ConfigError, match="cannot be reached"):
        await require_models(
            ModelSettings.of(settings),
            Gateway.from_settings(ModelSettings.of(settings), secrets=settings.secrets()),
        )


@pytest.mark.parametrize(("status", "refused"), [(200, False), (401, True), (403, False)])
async def test_hosted_api_key_check(
    site: _Site,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    status: int,
    refused: bool,
) -> None:
    """The provider's model list checks reachability and the key; 403 (a key restricted
    to some endpoints) is not taken as refused."""
    site.routes["/v1/models"] = (status, {"data": []})
    loopback = replace(HOSTED_CHECKS["openai"], url=f"{url_of(site)}/v1/models")
    monkeypatch.setitem(HOSTED_CHECKS, "openai", loopback)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    problems = await preflight(
        ModelSettings.of(load_settings(model="openai:gpt-4.1-mini", data_dir=tmp_path))
    )
    assert bool(problems) is refused
    assert site.seen[0][1].get("Authorization") == f"Bearer {SECRET}"
    assert all(SECRET not in problem.describe() for problem in problems)


async def test_no_model_means_nothing_to_check(tmp_path: Path) -> None:
    assert await preflight(ModelSettings.of(load_settings(model="none", data_dir=tmp_path))) == []


async def test_the_library_checks_before_it_researches(tmp_path: Path) -> None:
    """``deepresearch.research`` (and the service worker, through the same runner) stops
    with the ConfigError before the run starts: no search, no checkpoint of a run."""
    from deepresearch.api import research_async
    from deepresearch.testing.static_search import StaticSearch

    search = StaticSearch([])
    port = closed_port()
    with pytest.raises(ConfigError, match="cannot be reached"):
        await research_async(
            "What is X?",
            model="openai:local-model",
            model_base_url=f"http://127.0.0.1:{port}/v1",
            data_dir=tmp_path,
            search_provider=search,
        )
    assert search.queries == []


async def test_a_server_that_answers_404_to_the_model_list_stops_the_run(
    site: _Site, tmp_path: Path
) -> None:
    """An address that answers 404 to everything (no OpenAI-compatible API there): the run
    stopped on it only after every call fell back, with an extractive report and exit 0."""
    settings = compatible(f"{url_of(site)}/v1", tmp_path)
    with pytest.raises(ConfigError) as caught:
        await require_models(
            ModelSettings.of(settings),
            Gateway.from_settings(ModelSettings.of(settings), secrets=settings.secrets()),
        )
    assert "HTTP 404" in caught.value.message and "OpenAI-compatible" in caught.value.message
    assert [path for path, _ in site.seen] == ["/v1/models"]
