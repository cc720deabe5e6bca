"""Calls per model endpoint are limited in the gateway, and a call's timeout starts when
the call does.

The server here answers one request at a time, like llama.cpp's server or Ollama: sent
all at once, the later requests queue in the server while their per-call timeout runs
out, and the server finds their clients gone ("disconnected before llm invoked"). With
the endpoint's slots they wait in the gateway instead, every request the server gets is
answered, and no call times out because of the queue.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr

from deepresearch.llm import Gateway
from deepresearch.llm.endpoints import (
    HOSTED_CONCURRENCY,
    LOCAL_CONCURRENCY,
    Endpoint,
    endpoint_for,
    endpoint_of_model,
    safe_label,
)
from deepresearch.llm.gateway import QueueEvent
from deepresearch.llm.providers import build_chat_model
from deepresearch.models.usage import ModelCall
from deepresearch.settings import Settings, load_settings
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES, Role
from deepresearch.testing.scripted import ScriptedChatModel

from ..cli.chat_server import SECRET, SLOW, ChatServer, chat_server  # noqa: F401 (fixture)

# its calls race one-second timeouts against a server that answers in 0.3-0.6 s: run
# in make test's serial pass, not beside three busy workers (docs/testing.md)
pytestmark = pytest.mark.serial

DELAY_S = 0.3
TIMEOUT_S = 1.0  # four requests queued at the server would take 1.2 s: too long for it


def settings_for(server: ChatServer, tmp_path: Path, **extra: Any) -> Settings:
    options: dict[str, Any] = {
        "model": "openai:local-model",
        "model_base_url": f"http://127.0.0.1:{server.server_address[1]}/v1",
        "model_api_key": SECRET,
        "model_timeout_s": TIMEOUT_S,
        "model_max_retries": 0,
        "data_dir": tmp_path,
    }
    return load_settings(**{**options, **extra})


def gateway_for(
    settings: Settings, queue: list[QueueEvent], calls: list[ModelCall] | None = None
) -> Gateway:
    return Gateway.from_settings(
        ModelSettings.of(settings),
        on_queue=queue.append,
        on_call=None if calls is None else calls.append,
    )


ASKS: list[Role] = ["judge", "summarizer", "judge", "researcher", "summarizer", "planner"]


async def test_queued_calls_wait_in_the_gateway_not_at_the_server(
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    chat_server.serial, chat_server.delay_s = True, DELAY_S
    queue: list[QueueEvent] = []
    calls: list[ModelCall] = []
    gateway = gateway_for(settings_for(chat_server, tmp_path), queue, calls)
    answers = await asyncio.gather(
        *(
            gateway.text(role, system="You help.", user=f"question {i}", stage="research")
            for i, role in enumerate(ASKS)
        )
    )
    assert all(answers), gateway.errors
    assert (chat_server.completed, chat_server.abandoned) == (len(ASKS), 0)
    assert all(call.ok and call.attempts == 1 for call in calls)
    # each call's latency is its own time at the server, not the wait before it
    assert max(call.latency_s for call in calls) < TIMEOUT_S
    # every role shares the one endpoint: all but the first call waited, then started
    waiting = [event for event in queue if event.kind == "waiting"]
    started = [event for event in queue if event.kind == "started"]
    assert len(waiting) == len(started) == len(ASKS) - 1
    assert [event.waiting for event in waiting] == list(range(1, len(ASKS)))
    assert {event.endpoint for event in queue} == {f"127.0.0.1:{chat_server.server_address[1]}"}
    assert all(event.limit == 1 and event.in_flight <= 1 for event in queue)
    assert max(event.waited_s for event in started) > TIMEOUT_S  # waited past the timeout


async def test_two_runs_on_one_loop_share_the_endpoint(
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The service runs several jobs on one event loop: their gateways share the slots."""
    chat_server.serial, chat_server.delay_s = True, DELAY_S
    queue: list[QueueEvent] = []
    settings = settings_for(chat_server, tmp_path)
    first, second = gateway_for(settings, queue), gateway_for(settings, queue)
    answers = await asyncio.gather(
        *(
            gateway.text("writer", system="s", user=f"u{i}", stage="write")
            for i in range(3)
            for gateway in (first, second)
        )
    )
    assert all(answers)
    assert (chat_server.completed, chat_server.abandoned) == (6, 0)


async def test_waiting_has_its_own_bound(
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    chat_server.serial, chat_server.delay_s = True, 0.6
    queue: list[QueueEvent] = []
    gateway = gateway_for(settings_for(chat_server, tmp_path, model_wait_timeout_s=0.2), queue)
    first, second = await asyncio.gather(
        gateway.text("writer", system="s", user="first", stage="write"),
        gateway.text("judge", system="s", user="second", stage="audit"),
    )
    assert first and second is None  # the second gave up waiting: its step falls back
    assert [event.kind for event in queue] == ["waiting", "gave_up"]
    assert any("waited" in error and "to be free" in error for error in gateway.errors)
    assert (chat_server.completed, chat_server.abandoned) == (1, 0)  # never sent, not abandoned
    assert gateway.usage.failed_calls == 1
    assert gateway.has_model("judge")  # waiting is not the model's fault: no breaker


async def test_the_wait_does_not_count_against_the_step_timeout(
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Rank's own 30 s timeout and every other step's: they start with the call."""
    chat_server.serial, chat_server.delay_s = True, DELAY_S
    gateway = gateway_for(settings_for(chat_server, tmp_path), [])
    results = await asyncio.gather(
        *(
            gateway.structured_with_reason(
                "judge", _Answer, system="s", user=f"u{i}", stage="rank", timeout_s=0.8
            )
            for i in range(5)
        )
    )
    # the research script answers this unknown prompt with {}: valid for _Answer
    assert [why for _, why in results] == [""] * 5
    assert chat_server.abandoned == 0


class _Answer(BaseModel):
    note: str = ""


def test_endpoint_defaults_and_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    local = load_settings(model="openai:m", model_base_url="http://user:pw@10.0.0.5:8080/v1")
    endpoint = endpoint_for("openai:m", ModelSettings.of(local))
    assert endpoint is not None and endpoint.limit == LOCAL_CONCURRENCY == 1
    assert endpoint.label == "10.0.0.5:8080" and "pw" not in endpoint.key
    ollama = endpoint_for(
        "ollama:llama3.2", ModelSettings.of(load_settings(model="ollama:llama3.2"))
    )
    assert ollama is not None and (ollama.label, ollama.limit) == ("127.0.0.1:11434", 1)
    hosted = endpoint_for(
        "anthropic:claude", ModelSettings.of(load_settings(model="anthropic:claude"))
    )
    assert hosted is not None and (hosted.label, hosted.limit) == ("anthropic", HOSTED_CONCURRENCY)
    assert hosted.url is None
    more = load_settings(model="openai:m", model_base_url="http://h:1/v1", model_concurrency=4)
    raised = endpoint_for("openai:m", ModelSettings.of(more))
    assert raised is not None and raised.limit == 4
    assert endpoint_for("none", ModelSettings.of(local)) is None
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box")
    remote = endpoint_for("ollama:x", ModelSettings.of(load_settings(model="ollama:x")))
    assert remote is not None and remote.label == "gpu-box:11434"


def test_labels_never_carry_credentials_or_queries() -> None:
    assert safe_label("https://me:s3cret@example.com/v1?key=abc") == "example.com"
    assert safe_label("http://[::1]:8080/v1") == "[::1]:8080"
    assert safe_label("127.0.0.1:9000") == "127.0.0.1:9000"


def test_ready_made_models_get_an_endpoint_of_their_own() -> None:
    settings = load_settings(model="none")
    one, two = ScriptedChatModel(["a"]), ScriptedChatModel(["b"])
    assert (
        endpoint_of_model(one, ModelSettings.of(settings)).key
        != endpoint_of_model(two, ModelSettings.of(settings)).key
    )
    assert endpoint_of_model(one, ModelSettings.of(settings)).limit == HOSTED_CONCURRENCY


def test_roles_without_a_model_have_no_endpoint() -> None:
    gateway = Gateway.disabled()
    assert all(gateway.endpoint(role) is None for role in ROLES)


async def test_a_timeout_at_a_local_server_is_not_retried(
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A local model too slow for the timeout once is as slow again; retrying would hold
    the one slot (and every call waiting for it) as long again."""
    chat_server.serial, chat_server.delay_s = True, 1.0
    calls: list[ModelCall] = []
    settings = settings_for(chat_server, tmp_path, model_timeout_s=0.3, model_max_retries=2)
    gateway = gateway_for(settings, [], calls)
    assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert [call.attempts for call in calls] == [1]
    assert any("timed out on the first attempt" in error for error in gateway.errors)


async def test_a_call_given_up_on_stops_the_servers_work(
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A call that times out must not keep a one-at-a-time server busy: the next call
    would wait there, behind work nobody wants, while its own timeout runs. Calls to an
    OpenAI-compatible server are streamed, so the server notices the closed connection
    between tokens and stops."""
    chat_server.serial, chat_server.delay_s, chat_server.slow_s = True, 0.2, 5.0
    calls: list[ModelCall] = []
    gateway = gateway_for(settings_for(chat_server, tmp_path), [], calls)
    slow, quick = await asyncio.gather(
        gateway.text("writer", system="s", user=f"{SLOW} a long story", stage="write"),
        gateway.text("judge", system="s", user="a short answer", stage="audit"),
    )
    assert slow is None and quick  # the slow one timed out; the next one was not held up
    assert [call.ok for call in calls] == [False, True]
    assert chat_server.stopped == 1 and chat_server.completed == 1


def test_compatible_servers_are_streamed() -> None:
    model = build_chat_model("openai:local", base_url="http://127.0.0.1:9/v1")
    assert isinstance(model, ChatOpenAI) and model.streaming is True
    hosted = build_chat_model("openai:gpt-4.1-mini", api_key=SecretStr("sk-test-123"))
    assert isinstance(hosted, ChatOpenAI) and hosted.streaming is False


class _Stubborn(ScriptedChatModel):
    """A model whose call, once cancelled, takes its time to stop (a client library's
    clean-up that waits on the network, say): the slot must not wait for it."""

    async def _agenerate(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Any:
        try:
            await asyncio.sleep(self.latency_s)
        except asyncio.CancelledError:
            await asyncio.sleep(self.latency_s)
            raise
        return await super()._agenerate(messages, stop, run_manager, **kw)


async def test_a_call_that_will_not_stop_does_not_hold_the_slot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from deepresearch.llm import invoke as invoke_module

    monkeypatch.setattr(invoke_module, "CANCEL_GRACE_S", 0.1)
    stubborn = _Stubborn(["late"], latency_s=3.0)
    quick = ScriptedChatModel(["on time"])
    endpoint = Endpoint(key="one-server", label="one-server", limit=1)
    gateway = Gateway(
        {"writer": stubborn, "judge": quick},
        model_names={"writer": "scripted:stubborn", "judge": "scripted:quick"},
        timeout_s=0.3,
        max_retries=0,
        endpoints={"writer": endpoint, "judge": endpoint},
    )
    started = asyncio.get_running_loop().time()
    late, on_time = await asyncio.gather(
        gateway.text("writer", system="s", user="u", stage="write"),
        gateway.text("judge", system="s", user="u", stage="audit"),
    )
    assert late is None and on_time == "on time"
    assert asyncio.get_running_loop().time() - started < 2.0  # not the stubborn 3 s
