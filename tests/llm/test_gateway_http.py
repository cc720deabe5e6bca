"""Real LangChain provider clients through the gateway, against loopback HTTP servers
speaking the OpenAI Chat Completions, Anthropic Messages and Ollama /api/chat formats."""

from __future__ import annotations

import logging
import time

import pytest
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, SecretStr

from deepresearch.llm import Gateway, build_chat_model
from deepresearch.llm.providers import DUMMY_API_KEY
from deepresearch.models.usage import ModelCall
from deepresearch.settings import Settings
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES

from .conftest import FakeServer


class Outline(BaseModel):
    title: str
    sections: list[str]


def gateway_for(
    model: BaseChatModel | None,
    spec: str,
    calls: list[ModelCall],
    *,
    max_retries: int = 3,
    retry_max_s: float = 0.01,
    secrets: tuple[str, ...] = (),
) -> Gateway:
    return Gateway(
        dict.fromkeys(ROLES, model),
        model_names=dict.fromkeys(ROLES, spec),
        timeout_s=5.0,
        max_retries=max_retries,
        retry_base_s=0.001,
        retry_max_s=retry_max_s,
        secrets=secrets,
        on_call=calls.append,
    )


def openai_model(server: FakeServer, key: str | None = None) -> BaseChatModel | None:
    return build_chat_model(
        "openai-compatible:local-model",
        base_url=f"{server.url}/v1",
        api_key=SecretStr(key) if key else None,
        timeout_s=5.0,
    )


# OpenAI-compatible ------------------------------------------------------------------------
async def test_openai_compatible_text_with_reported_usage(fake_server: FakeServer) -> None:
    fake_server.reply_openai("Paris is the capital.", prompt_tokens=21, completion_tokens=6)
    calls: list[ModelCall] = []
    gateway = gateway_for(openai_model(fake_server), "openai-compatible:local-model", calls)
    answer = await gateway.text("writer", system="Be brief.", user="Capital?", stage="write")
    assert answer == "Paris is the capital."
    request = fake_server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {DUMMY_API_KEY}"
    assert request.body["model"] == "local-model"
    assert request.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital?"},
    ]
    assert (calls[0].input_tokens, calls[0].output_tokens) == (21, 6)
    assert calls[0].usage_source == "reported"
    assert gateway.usage.by_role["writer"].input_tokens == 21


async def test_openai_compatible_structured(fake_server: FakeServer) -> None:
    fake_server.reply_openai('```json\n{"title": "T", "sections": ["a", "b",]}\n```')
    gateway = gateway_for(openai_model(fake_server), "openai-compatible:local-model", [])
    outline = await gateway.structured("planner", Outline, system="Plan.", user="q", stage="plan")
    assert outline == Outline(title="T", sections=["a", "b"])
    assert "JSON Schema" in fake_server.requests[0].body["messages"][0]["content"]


async def test_rate_limit_with_retry_after_is_retried(fake_server: FakeServer) -> None:
    fake_server.reply_openai_error(
        429, "Rate limit reached", kind="rate_limit_error", headers={"retry-after": "30"}
    )
    fake_server.reply_openai("ok after waiting")
    calls: list[ModelCall] = []
    gateway = gateway_for(
        openai_model(fake_server), "openai-compatible:local-model", calls, retry_max_s=0.2
    )
    started = time.monotonic()
    assert await gateway.text("writer", system="s", user="u", stage="write") == "ok after waiting"
    waited = time.monotonic() - started
    # retry-after (30 s) was honoured but capped at retry_max_s (0.2 s)
    assert 0.2 <= waited < 5
    assert len(fake_server.requests) == 2
    assert calls[0].attempts == 2 and calls[0].ok
    assert gateway.errors == []


async def test_server_errors_twice_then_success(fake_server: FakeServer) -> None:
    fake_server.reply_openai_error(500, "internal error", kind="server_error")
    fake_server.reply_openai_error(503, "overloaded", kind="server_error")
    fake_server.reply_openai("third time lucky")
    calls: list[ModelCall] = []
    gateway = gateway_for(openai_model(fake_server), "openai-compatible:local-model", calls)
    assert await gateway.text("writer", system="s", user="u", stage="write") == "third time lucky"
    assert len(fake_server.requests) == 3
    assert calls[0].attempts == 3


async def test_server_errors_exhaust_retries(fake_server: FakeServer) -> None:
    for _ in range(3):
        fake_server.reply_openai_error(502, "bad gateway", kind="server_error")
    calls: list[ModelCall] = []
    gateway = gateway_for(
        openai_model(fake_server), "openai-compatible:local-model", calls, max_retries=2
    )
    assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert len(fake_server.requests) == 3
    assert calls[0].ok is False
    assert gateway.errors == [
        "model openai-compatible:local-model was unavailable (HTTP 502) after 3 attempts; "
        "a deterministic fallback was used for that step"
    ]


async def test_refused_key_falls_back_with_a_sanitized_error(
    fake_server: FakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    key = "sk-live-THISMUSTNOTLEAK-1234567890"
    fake_server.reply_openai_error(
        401, f"Incorrect API key provided: {key}. Find yours at ...", kind="invalid_request_error"
    )
    calls: list[ModelCall] = []
    gateway = gateway_for(
        openai_model(fake_server, key), "openai:gpt-4.1-mini", calls, secrets=(key,)
    )
    caplog.set_level(logging.DEBUG, logger="deepresearch")
    assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert len(fake_server.requests) == 1  # 401 is not retried
    assert fake_server.requests[0].headers["authorization"] == f"Bearer {key}"
    assert gateway.errors == [
        "model openai:gpt-4.1-mini refused the API key (HTTP 401); "
        "the run used deterministic fallbacks"
    ]
    assert "THISMUSTNOTLEAK" not in caplog.text
    assert "Incorrect API key" in caplog.text  # the redacted provider text is logged at debug
    assert not gateway.has_model("planner")  # same model: no more calls this run
    assert await gateway.text("planner", system="s", user="u", stage="plan") is None
    assert len(fake_server.requests) == 1


async def test_env_key_is_redacted_via_settings(
    fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    key = "plain-env-key-without-known-shape"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    fake_server.reply_openai_error(403, f"key {key} may not use this model", kind="permission")
    settings = Settings(
        model="openai:local-model", model_base_url=f"{fake_server.url}/v1", model_max_retries=0
    )
    gateway = Gateway.from_settings(ModelSettings.of(settings), secrets=settings.secrets())
    caplog.set_level(logging.DEBUG, logger="deepresearch")
    assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert fake_server.requests[0].headers["authorization"] == f"Bearer {key}"
    assert key not in caplog.text and key not in " ".join(gateway.errors)
    assert "[redacted]" in caplog.text


async def test_unreachable_server_is_a_connection_failure() -> None:
    model = build_chat_model("openai-compatible:m", base_url="http://127.0.0.1:9/v1")
    gateway = gateway_for(model, "openai-compatible:m", [], max_retries=1)
    assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert "unreachable" in gateway.errors[0]


# Anthropic --------------------------------------------------------------------------------
async def test_anthropic_messages(fake_server: FakeServer) -> None:
    fake_server.reply_anthropic('{"title": "T", "sections": []}', input_tokens=40, output_tokens=8)
    key = "sk-ant-test-0123456789abcdef"
    model = build_chat_model(
        "anthropic:claude-test", base_url=fake_server.url, api_key=SecretStr(key)
    )
    calls: list[ModelCall] = []
    gateway = gateway_for(model, "anthropic:claude-test", calls)
    outline = await gateway.structured("planner", Outline, system="Plan.", user="q", stage="plan")
    assert outline == Outline(title="T", sections=[])
    request = fake_server.requests[0]
    assert request.path == "/v1/messages"
    # older anthropic SDKs send x-api-key, newer ones an Authorization bearer header
    assert key in (request.headers.get("x-api-key"), request.headers.get("authorization", "")[7:])
    assert request.body["model"] == "claude-test"
    assert request.body["system"].startswith("Plan.")
    assert request.body["messages"] == [{"role": "user", "content": "q"}]
    assert (calls[0].input_tokens, calls[0].output_tokens, calls[0].usage_source) == (
        40,
        8,
        "reported",
    )


async def test_anthropic_overloaded_is_retried(fake_server: FakeServer) -> None:
    fake_server.reply_json(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        status=529,
    )
    fake_server.reply_anthropic("fine now")
    model = build_chat_model(
        "anthropic:claude-test", base_url=fake_server.url, api_key=SecretStr("sk-ant-x-123456")
    )
    gateway = gateway_for(model, "anthropic:claude-test", [])
    assert await gateway.text("writer", system="s", user="u", stage="write") == "fine now"
    assert len(fake_server.requests) == 2


# Ollama -----------------------------------------------------------------------------------
async def test_ollama_chat(fake_server: FakeServer) -> None:
    fake_server.reply_ollama("<think>hmm</think>Local answer.", prompt_eval_count=30, eval_count=4)
    model = build_chat_model("ollama:llama3.2:3b", base_url=fake_server.url)
    calls: list[ModelCall] = []
    gateway = gateway_for(model, "ollama:llama3.2:3b", calls)
    assert await gateway.text("writer", system="s", user="u", stage="write") == "Local answer."
    request = fake_server.requests[0]
    assert request.path == "/api/chat"
    assert request.body["model"] == "llama3.2:3b"
    assert request.body["messages"][0] == {"role": "system", "content": "s"}
    assert (calls[0].input_tokens, calls[0].output_tokens, calls[0].usage_source) == (
        30,
        4,
        "reported",
    )


async def test_ollama_unknown_model(fake_server: FakeServer) -> None:
    fake_server.reply_json({"error": "model 'nope' not found"}, status=404)
    model = build_chat_model("ollama:nope", base_url=fake_server.url)
    gateway = gateway_for(model, "ollama:nope", [])
    assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert len(fake_server.requests) == 1
    assert gateway.errors == [
        "model ollama:nope was not found (HTTP 404); "
        "the run used deterministic fallbacks (check the model name)"
    ]
