"""build_chat_model / build_role_models: specs, keys, extras, base_url."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from deepresearch.errors import ConfigError, MissingKeyError
from deepresearch.llm import build_chat_model, build_role_models
from deepresearch.llm.gateway import Gateway
from deepresearch.llm.providers import DUMMY_API_KEY, key_env_vars, parse_spec
from deepresearch.settings import Settings
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES


@pytest.mark.parametrize("spec", ["none", "NONE", " none "])
def test_none_means_no_model(spec: str) -> None:
    assert build_chat_model(spec) is None


@pytest.mark.parametrize(
    ("spec", "variable"),
    [
        ("openai:gpt-4.1-mini", "OPENAI_API_KEY"),
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("google:gemini-2.5-flash", "GOOGLE_API_KEY"),
        ("google_genai:gemini-2.5-flash", "GOOGLE_API_KEY"),
    ],
)
def test_missing_key_names_the_variable_and_the_way_out(spec: str, variable: str) -> None:
    with pytest.raises(MissingKeyError) as caught:
        build_chat_model(spec)
    text = str(caught.value)
    assert variable in text
    assert "--model none" in text
    assert "--model ollama:" in text


def test_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-from-env-123456")
    model = build_chat_model("openai:gpt-4.1-mini", timeout_s=12.5, temperature=0.3)
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "gpt-4.1-mini"
    assert model.max_retries == 0  # the gateway retries, not the SDK
    assert model.request_timeout == 12.5
    assert model.temperature == 0.3


def test_explicit_key_beats_environment() -> None:
    model = build_chat_model("anthropic:claude-test", api_key=SecretStr("sk-ant-explicit-123456"))
    assert isinstance(model, ChatAnthropic)
    assert model.anthropic_api_key.get_secret_value() == "sk-ant-explicit-123456"
    assert model.max_retries == 0


def test_google_alias_and_retry_quirk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "AIza" + "x" * 35)
    model = build_chat_model("google:gemini-2.5-flash")
    assert type(model).__name__ == "ChatGoogleGenerativeAI"
    # The Google SDK reads 0 as "default retries"; 1 means a single attempt.
    assert getattr(model, "max_retries", None) == 1


@pytest.mark.parametrize("spec", ["nosuchprovider:model-x", "made-up:thing"])
def test_unknown_provider_is_a_config_error(spec: str) -> None:
    with pytest.raises(ConfigError) as caught:
        build_chat_model(spec)
    assert not isinstance(caught.value, MissingKeyError)
    assert "unknown model provider" in str(caught.value)


@pytest.mark.parametrize("spec", ["gpt-4o", "openai:", ":gpt-4o"])
def test_malformed_spec(spec: str) -> None:
    with pytest.raises(ConfigError, match="provider:model"):
        build_chat_model(spec)


def test_missing_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "langchain_anthropic":
            return None
        return real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ConfigError) as caught:
        build_chat_model("anthropic:claude-test", api_key=SecretStr("sk-ant-abcdefgh"))
    assert "pip install 'deepresearch[anthropic]'" in str(caught.value)


def test_provider_langchain_knows_but_not_installed() -> None:
    with pytest.raises(ConfigError) as caught:
        build_chat_model("bedrock_converse:some-model")
    assert "not installed" in str(caught.value)
    assert "pip install" in str(caught.value)


def test_base_url_points_openai_client_at_compatible_server() -> None:
    model = build_chat_model("openai:qwen2.5-7b", base_url="http://127.0.0.1:8080/v1")
    assert isinstance(model, ChatOpenAI)
    assert str(model.root_async_client.base_url).startswith("http://127.0.0.1:8080/v1")
    assert model.openai_api_key is not None
    assert isinstance(model.openai_api_key, SecretStr)
    assert model.openai_api_key.get_secret_value() == DUMMY_API_KEY
    assert model.use_responses_api is False  # llama.cpp / vLLM speak Chat Completions


def test_openai_compatible_spec() -> None:
    model = build_chat_model(
        "openai-compatible:local/model:q4",
        base_url="http://127.0.0.1:9/v1",
        api_key=SecretStr("local-key-123"),
    )
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "local/model:q4"
    assert isinstance(model.openai_api_key, SecretStr)
    assert model.openai_api_key.get_secret_value() == "local-key-123"


def test_openai_compatible_needs_base_url() -> None:
    with pytest.raises(ConfigError, match="server's address"):
        build_chat_model("openai-compatible:local")


def test_ollama_needs_no_key_and_keeps_tagged_model_name() -> None:
    model = build_chat_model("ollama:llama3.2:3b", base_url="http://127.0.0.1:11434")
    assert isinstance(model, ChatOllama)
    assert model.model == "llama3.2:3b"
    assert model.base_url == "http://127.0.0.1:11434"


def test_parse_spec_aliases() -> None:
    assert parse_spec("google:gemini-2.5-pro") is not None
    parsed = parse_spec("Google-GenAI:gemini-2.5-pro")
    assert parsed is not None and parsed.provider == "google_genai"
    assert key_env_vars("anthropic:x") == ("ANTHROPIC_API_KEY",)
    assert key_env_vars("none") == ()


def test_role_models_share_one_instance_per_spec() -> None:
    settings = Settings(model="ollama:llama3.2", writer_model="ollama:qwen2.5", judge_model="none")
    models = build_role_models(ModelSettings.of(settings))
    assert set(models) == set(ROLES)
    assert models["planner"] is models["researcher"] is models["summarizer"]
    assert models["writer"] is not models["planner"]
    assert isinstance(models["writer"], ChatOllama) and models["writer"].model == "qwen2.5"
    assert models["judge"] is None


def test_gateway_from_settings_without_models() -> None:
    gateway = Gateway.from_settings(ModelSettings.of(Settings(model="none")))
    assert not any(gateway.has_model(role) for role in ROLES)
