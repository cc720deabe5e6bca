"""Which server a role's model talks to, and how many calls it may have in flight there.

A local server (llama.cpp, vLLM, LM Studio behind ``--model-base-url``, or Ollama) usually
answers one request at a time; a request sent while it is busy waits in the server's queue
where our per-call timeout runs out before the model even sees it. So the gateway limits
calls per *endpoint* (``Endpoint.key``), shared by every role that uses it, and a call's
timeout starts only once it has a slot.

``Endpoint.label`` is what users see in events and errors: ``host:port`` of a URL (never
its user name, password, path or query) or a hosted provider's name. ``Endpoint.url`` is
the full address for the preflight and is never shown.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from langchain_core.language_models import BaseChatModel

from deepresearch.llm.providers import parse_spec
from deepresearch.settings_groups import ModelSettings

LOCAL_CONCURRENCY = 1
"""Default calls in flight to a ``--model-base-url`` server or Ollama: they serve one."""
HOSTED_CONCURRENCY = 8
"""Default calls in flight to a hosted API (OpenAI, Anthropic, Google...)."""
OLLAMA_DEFAULT_URL = "http://127.0.0.1:11434"
_OLLAMA_PORT = 11434
# API hosts of hosted providers, for models handed in ready-made (their base URL is set).
_HOSTED_HOSTS = (
    "api.openai.com",
    "api.anthropic.com",
    "generativelanguage.googleapis.com",
    "api.groq.com",
    "api.mistral.ai",
    "api.deepseek.com",
    "api.x.ai",
    "api.together.xyz",
    "api.fireworks.ai",
)


@dataclass(frozen=True)
class Endpoint:
    """One model server as far as concurrency and the preflight care."""

    key: str
    """Identity: calls with the same key share slots. No credentials in it."""
    label: str
    """Shown to users: ``host:port`` or the provider's name."""
    limit: int
    """Calls in flight at once."""
    provider: str = ""
    """LangChain's provider name (``openai``, ``ollama``...), empty for a ready-made model."""
    url: str | None = None
    """The server's base URL (may hold credentials: never shown), None for a hosted API."""

    @property
    def local(self) -> bool:
        """A server the user runs (``--model-base-url`` or Ollama), not a hosted API."""
        return self.url is not None


def safe_label(url: str) -> str:
    """``host:port`` of ``url``: no scheme, user name, password, path or query."""
    try:
        parts = urlsplit(url if "//" in url else f"//{url}")
        host = parts.hostname or "?"
        port = parts.port
    except ValueError:
        return "the configured server"
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    return f"{host}:{port}" if port else host


def _key(url: str) -> str:
    """The endpoint identity of ``url``: scheme, host, port and path, no credentials."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return url.split("@")[-1]
    netloc = f"[{host}]" if ":" in host else host
    if port:
        netloc += f":{port}"
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def ollama_url(base_url: str | None) -> str:
    """The Ollama server a ``ChatOllama`` talks to: ``base_url``, else ``OLLAMA_HOST``
    (the Ollama client's own variable, which may lack a scheme or port), else the default."""
    if base_url:
        return base_url
    host = os.environ.get("OLLAMA_HOST", "").strip()
    if not host:
        return OLLAMA_DEFAULT_URL
    if "://" not in host:
        host = f"http://{host}"
    try:
        has_port = urlsplit(host).port is not None
    except ValueError:
        return OLLAMA_DEFAULT_URL
    return host if has_port else f"{host.rstrip('/')}:{_OLLAMA_PORT}"


def endpoint_for(spec: str, settings: ModelSettings) -> Endpoint | None:
    """The endpoint a ``provider:model`` spec reaches with ``settings`` (None for none)."""
    parsed = parse_spec(spec)
    if parsed is None:
        return None
    if parsed.provider == "ollama" or settings.model_base_url:
        url = (
            ollama_url(settings.model_base_url)
            if parsed.provider == "ollama"
            else str(settings.model_base_url)
        )
        return Endpoint(
            key=_key(url),
            label=safe_label(url),
            limit=settings.model_concurrency or LOCAL_CONCURRENCY,
            provider=parsed.provider,
            url=url,
        )
    return Endpoint(
        key=f"hosted:{parsed.provider}",
        label=parsed.provider,
        limit=settings.model_concurrency or HOSTED_CONCURRENCY,
        provider=parsed.provider,
    )


def endpoint_of_model(model: BaseChatModel, settings: ModelSettings) -> Endpoint:
    """The endpoint of a ready-made chat model (library users, tests, benchmarks): its
    base URL when it has one that is not a hosted API's, else the model object itself."""
    url = _base_url_of(model)
    if url and safe_label(url).split(":")[0] not in _HOSTED_HOSTS:
        return Endpoint(
            key=_key(url),
            label=safe_label(url),
            limit=settings.model_concurrency or LOCAL_CONCURRENCY,
            url=url,
        )
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    return Endpoint(
        key=f"model:{id(model)}",
        label=str(name or type(model).__name__),
        limit=settings.model_concurrency or HOSTED_CONCURRENCY,
    )


def _base_url_of(model: BaseChatModel) -> str | None:
    for attribute in ("openai_api_base", "base_url", "anthropic_api_url"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value.strip():
            return value.strip()
    if type(model).__name__ == "ChatOllama":
        return ollama_url(None)
    return None
