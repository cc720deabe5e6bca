"""Build LangChain chat models from ``provider:model`` specs.

This is the only module that knows provider names. It turns a spec such as
``openai:gpt-4.1-mini``, ``anthropic:claude-sonnet-4-5``, ``google:gemini-2.5-flash``,
``ollama:llama3.2:3b`` or ``openai-compatible:qwen2.5-7b`` into a configured
``BaseChatModel`` via ``langchain.chat_models.init_chat_model``, or into ``None`` for
``none`` (deterministic fallbacks only).

Configuration problems surface here, at start, as :class:`ConfigError` /
:class:`MissingKeyError` with what to do, never as a failed call in the middle of a run.
The SDKs' own retries are switched off because the gateway retries (with backoff, jitter
and ``retry-after``) for every provider alike.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Any

from langchain.chat_models import init_chat_model
from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr, ValidationError

from deepresearch.errors import ConfigError, MissingKeyError
from deepresearch.llm.redact import redact
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES, Role

NO_MODEL = "none"
# Sent to OpenAI-compatible local servers (vLLM, llama.cpp, LM Studio) that need no key:
# the OpenAI client refuses to start without one.
DUMMY_API_KEY = "sk-no-key-required"

_ALIASES = {
    "google": "google_genai",
    "gemini": "google_genai",
    "openai_compatible": "openai",
}
_COMPATIBLE = "openai_compatible"


@dataclass(frozen=True)
class _Provider:
    module: str  # the LangChain integration package's import name
    package: str  # its pip name
    key_env: tuple[str, ...] = ()  # any of these variables supplies the key
    extra: str | None = None  # the deepresearch extra that installs it


_KNOWN: dict[str, _Provider] = {
    "openai": _Provider("langchain_openai", "langchain-openai", ("OPENAI_API_KEY",), "openai"),
    "anthropic": _Provider(
        "langchain_anthropic", "langchain-anthropic", ("ANTHROPIC_API_KEY",), "anthropic"
    ),
    "google_genai": _Provider(
        "langchain_google_genai",
        "langchain-google-genai",
        ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
        "google",
    ),
    "ollama": _Provider("langchain_ollama", "langchain-ollama", (), "ollama"),
    "groq": _Provider("langchain_groq", "langchain-groq", ("GROQ_API_KEY",)),
    "mistralai": _Provider("langchain_mistralai", "langchain-mistralai", ("MISTRAL_API_KEY",)),
    "deepseek": _Provider("langchain_deepseek", "langchain-deepseek", ("DEEPSEEK_API_KEY",)),
    "xai": _Provider("langchain_xai", "langchain-xai", ("XAI_API_KEY",)),
    "together": _Provider("langchain_together", "langchain-together", ("TOGETHER_API_KEY",)),
    "fireworks": _Provider("langchain_fireworks", "langchain-fireworks", ("FIREWORKS_API_KEY",)),
}

_NO_MODEL_HINT = (
    "or run with deterministic fallbacks only (--model none), "
    "or with a local model (--model ollama:llama3.2)"
)


@dataclass(frozen=True)
class ModelSpec:
    """A parsed ``provider:model`` spec. ``provider`` is LangChain's name for it."""

    provider: str
    model: str
    compatible: bool = False  # "openai-compatible:": an OpenAI-style server at base_url


def parse_spec(spec: str) -> ModelSpec | None:
    """Parse ``provider:model`` (None for ``none``); raise ConfigError when malformed."""
    text = spec.strip()
    if text.lower() == NO_MODEL:
        return None
    provider, sep, model = text.partition(":")
    provider = provider.strip().lower().replace("-", "_")
    model = model.strip()
    if not sep or not provider or not model:
        raise ConfigError(
            f"model {spec!r} is not of the form provider:model",
            hint="for example openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, "
            "ollama:llama3.2, or none",
        )
    return ModelSpec(_ALIASES.get(provider, provider), model, compatible=provider == _COMPATIBLE)


def key_env_vars(spec: str) -> tuple[str, ...]:
    """The environment variables that may hold the API key for ``spec``."""
    parsed = parse_spec(spec)
    if parsed is None or parsed.provider not in _KNOWN:
        return ()
    return _KNOWN[parsed.provider].key_env


def known_providers() -> tuple[str, ...]:
    """The providers known here by name (LangChain's spelling; ``google`` and ``gemini``
    are accepted for ``google_genai``), for ``deepresearch init``."""
    return tuple(_KNOWN)


def provider_extra(provider: str) -> str | None:
    """The deepresearch extra that installs ``provider``'s client (``deepresearch[openai]``),
    or None: the image and the extras leave it out (compose passes the keys of those it
    installs)."""
    known = _KNOWN.get(provider)
    return known.extra if known is not None else None


def missing_package(spec: str) -> str | None:
    """How to install the package ``spec``'s provider needs, or None if nothing is missing."""
    parsed = parse_spec(spec)
    known = _KNOWN.get(parsed.provider) if parsed is not None else None
    if parsed is None or known is None:
        return None
    try:
        _require_package(parsed.provider, known)
    except ConfigError as exc:
        return exc.hint
    return None


def build_chat_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: SecretStr | None = None,
    timeout_s: float = 60.0,
    temperature: float = 0.0,
) -> BaseChatModel | None:
    """A configured chat model for ``spec``, or None for ``none``.

    ``base_url`` points the provider's client at another server: with ``openai:`` or
    ``openai-compatible:`` an OpenAI-compatible one (vLLM, llama.cpp, LM Studio), which
    gets a dummy key when none is configured. ``api_key`` overrides the provider's usual
    environment variable.
    """
    parsed = parse_spec(spec)
    if parsed is None:
        return None
    if parsed.compatible and not base_url:
        raise ConfigError(
            f"model {spec!r} needs the server's address",
            hint="set --model-base-url or DEEPRESEARCH_MODEL_BASE_URL, "
            "e.g. http://127.0.0.1:8080/v1",
        )
    known = _KNOWN.get(parsed.provider)
    if known is not None:
        _require_package(parsed.provider, known)
    key = api_key.get_secret_value() if api_key is not None else ""
    kwargs = _provider_kwargs(parsed, base_url=base_url, key=key, timeout_s=timeout_s)
    if known is not None and known.key_env and "api_key" not in kwargs:
        _require_key(spec, known)
    try:
        model: BaseChatModel = init_chat_model(
            parsed.model, model_provider=parsed.provider, temperature=temperature, **kwargs
        )
    except ImportError as exc:
        raise ConfigError(
            f"model provider {parsed.provider!r} is not installed",
            hint=redact(str(exc), [key]),
        ) from None
    except ValidationError as exc:
        raise ConfigError(
            f"could not set up model {spec!r}: {exc.error_count()} invalid setting(s)",
            hint="check the model settings",
        ) from None
    except ValueError as exc:
        if known is None:
            raise ConfigError(
                f"unknown model provider {parsed.provider!r} in {spec!r}",
                hint="use openai, anthropic, google_genai, ollama, openai-compatible, "
                "another provider LangChain's init_chat_model supports, or none",
            ) from None
        raise ConfigError(f"could not set up model {spec!r}: {_short(exc, key)}") from None
    except Exception as exc:  # SDK constructors raise their own types; report, sanitized
        raise ConfigError(f"could not set up model {spec!r}: {_short(exc, key)}") from None
    return model


def _provider_kwargs(
    parsed: ModelSpec, *, base_url: str | None, key: str, timeout_s: float
) -> dict[str, Any]:
    """Constructor arguments for the provider's LangChain class."""
    kwargs: dict[str, Any] = {}
    if parsed.provider == "ollama":
        # ChatOllama has no timeout or retry fields: they belong to its httpx client.
        client: dict[str, Any] = {"timeout": timeout_s}
        if key:
            client["headers"] = {"Authorization": f"Bearer {key}"}
        kwargs["client_kwargs"] = client
        if base_url:
            kwargs["base_url"] = base_url
        return kwargs
    kwargs["timeout"] = timeout_s
    # The Google SDK reads max_retries=0 as "use the default"; 1 means one attempt.
    kwargs["max_retries"] = 1 if parsed.provider == "google_genai" else 0
    if base_url:
        kwargs["base_url"] = base_url
    if parsed.provider == "openai" and base_url:
        # OpenAI-compatible servers speak Chat Completions, not the Responses API.
        kwargs["use_responses_api"] = False
        # Streamed, so that a call we give up on (timeout) stops the server's work: a
        # local server (llama.cpp's, llama-cpp-python's) notices the closed connection
        # between tokens, while a non-streamed request is generated to the end and holds
        # the server, and every call after it, for that long.
        kwargs["streaming"] = True
        key = key or os.environ.get("OPENAI_API_KEY", "") or DUMMY_API_KEY
    if key:
        kwargs["api_key"] = key
    return kwargs


def _require_package(provider: str, known: _Provider) -> None:
    if importlib.util.find_spec(known.module) is None:
        install = (
            f"pip install 'deepresearch[{known.extra}]'"
            if known.extra
            else f"pip install {known.package}"
        )
        raise ConfigError(
            f"model provider {provider!r} needs the {known.package} package",
            hint=f"install it with: {install}",
        )


def _require_key(spec: str, known: _Provider) -> None:
    if any(os.environ.get(name) for name in known.key_env):
        return
    names = " or ".join(known.key_env)
    raise MissingKeyError(
        f"model {spec!r} needs an API key: set {names} (or DEEPRESEARCH_MODEL_API_KEY)",
        hint=_NO_MODEL_HINT,
    )


def _short(exc: BaseException, key: str) -> str:
    first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return redact(first_line[:200], [key])


def build_role_models(settings: ModelSettings) -> dict[Role, BaseChatModel | None]:
    """One model per role, sharing one instance between roles with the same spec and
    temperature (``settings.temperature_for(role)``).

    ``model_base_url`` and ``model_api_key`` apply to every role's provider.
    """
    built: dict[tuple[str, float], BaseChatModel | None] = {}
    out: dict[Role, BaseChatModel | None] = {}
    for role in ROLES:
        key = (settings.model_for(role), settings.temperature_for(role))
        if key not in built:
            built[key] = build_chat_model(
                key[0],
                base_url=settings.model_base_url,
                api_key=settings.model_api_key,
                timeout_s=settings.model_timeout_s,
                temperature=key[1],
            )
        out[role] = built[key]
    return out
