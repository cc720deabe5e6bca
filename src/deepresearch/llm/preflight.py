"""Before a run starts: can each configured model endpoint be reached?

Without this, a run with ``--model ollama:…`` and no Ollama running spends its retries and
timeouts on every step and then writes an extractive report with exit 0, as if nothing
were wrong. One cheap request per endpoint, with a short timeout, finds it first:

* ``--model-base-url`` (OpenAI-compatible: llama.cpp, vLLM, LM Studio): ``GET {base}/models``
  (a 404 there: the address is not such an API, so every chat call would fail too);
* Ollama: ``GET /api/tags``, which also lists the pulled models, so a model that is not
  pulled is found too;
* hosted APIs with a key (OpenAI, Anthropic, Google): their model list, which checks the
  key as well. Other providers are not checked here (their first call is).

A server that accepts the connection but is slow to answer counts as reachable (a local
server busy with another client's request is still there). A refused key (HTTP 401) is a
problem; 403 is not (keys restricted to some endpoints may still be allowed to chat).
Messages name the endpoint by its label (``host:port`` or provider), never a URL's
credentials or a key.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

import httpx

from deepresearch.errors import ConfigError
from deepresearch.llm.endpoints import Endpoint, endpoint_for
from deepresearch.llm.gateway import Gateway
from deepresearch.llm.providers import parse_spec
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES, Role

CONNECT_TIMEOUT_S = 5.0
"""How long a server has to accept the connection."""
ANSWER_TIMEOUT_S = 10.0
"""How long it has to answer; a slower answer still counts as reachable (busy)."""


@dataclass(frozen=True)
class _Hosted:
    url: str
    key_env: tuple[str, ...]
    header: str
    scheme: str = ""  # prefix before the key in the header, e.g. "Bearer "
    extra: tuple[tuple[str, str], ...] = ()
    refused: tuple[int, ...] = (401,)


HOSTED_CHECKS: dict[str, _Hosted] = {
    "openai": _Hosted(
        "https://api.openai.com/v1/models", ("OPENAI_API_KEY",), "Authorization", "Bearer "
    ),
    "anthropic": _Hosted(
        "https://api.anthropic.com/v1/models",
        ("ANTHROPIC_API_KEY",),
        "x-api-key",
        extra=(("anthropic-version", "2023-06-01"),),
    ),
    # Google answers 400 API_KEY_INVALID for a key it does not know.
    "google_genai": _Hosted(
        "https://generativelanguage.googleapis.com/v1beta/models",
        ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
        "x-goog-api-key",
        refused=(400, 401),
    ),
}


@dataclass(frozen=True)
class Unavailable:
    """An endpoint the run cannot use, the roles that need it, and why."""

    endpoint: Endpoint
    roles: tuple[Role, ...]
    reason: str

    def describe(self) -> str:
        who = ", ".join(self.roles)
        where = (
            f"the model server at {self.endpoint.label}"
            if self.endpoint.local
            else f"the {self.endpoint.label} API"
        )
        return f"{where} ({who}) {self.reason}"


async def preflight(settings: ModelSettings) -> list[Unavailable]:
    """Check every endpoint the configured roles use, concurrently; the ones that fail."""
    roles_at: dict[str, list[Role]] = {}
    models_at: dict[str, set[str]] = {}
    endpoints: dict[str, Endpoint] = {}
    for role in ROLES:
        spec = settings.model_for(role)
        endpoint = endpoint_for(spec, settings)
        parsed = parse_spec(spec)
        if endpoint is None or parsed is None:
            continue
        endpoints[endpoint.key] = endpoint
        roles_at.setdefault(endpoint.key, []).append(role)
        models_at.setdefault(endpoint.key, set()).add(parsed.model)
    if not endpoints:
        return []
    timeout = httpx.Timeout(ANSWER_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
        reasons = await asyncio.gather(
            *(
                _check(client, endpoint, sorted(models_at[key]), settings)
                for key, endpoint in endpoints.items()
            )
        )
    return [
        Unavailable(endpoints[key], tuple(roles_at[key]), reason)
        for key, reason in zip(endpoints, reasons, strict=True)
        if reason
    ]


async def _check(
    client: httpx.AsyncClient, endpoint: Endpoint, models: list[str], settings: ModelSettings
) -> str:
    """Why ``endpoint`` cannot be used, or "" when it can (or is not checked)."""
    if endpoint.url is None:
        return await _check_hosted(client, endpoint, settings)
    base = endpoint.url.rstrip("/")
    if endpoint.provider == "ollama":
        return await _check_ollama(client, base, models, settings)
    headers = {}
    key = _local_key(endpoint, settings)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    path = "/models" if endpoint.provider == "openai" else ""
    response = await _get(client, f"{base}{path}", headers)
    if isinstance(response, str):
        return response
    if response.status_code == 401:
        return "refused the API key (HTTP 401)"
    if path and response.status_code == 404:
        # every OpenAI-compatible server lists its models there (llama.cpp, vLLM, LM
        # Studio, Ollama's /v1): a 404 means the URL is not such an API, and each chat
        # call would be refused the same way
        return (
            "answered GET /models with HTTP 404: it is not an OpenAI-compatible API at "
            "that address (the base URL usually ends in /v1)"
        )
    return ""


async def _check_ollama(
    client: httpx.AsyncClient, base: str, models: list[str], settings: ModelSettings
) -> str:
    headers = {}
    if settings.model_api_key is not None and settings.model_api_key.get_secret_value():
        headers["Authorization"] = f"Bearer {settings.model_api_key.get_secret_value()}"
    response = await _get(client, f"{base}/api/tags", headers)
    if isinstance(response, str):
        return response
    if response.status_code == 401:
        return "refused the API key (HTTP 401)"
    if response.status_code != 200:
        return f"does not look like an Ollama server (GET /api/tags: HTTP {response.status_code})"
    try:
        listed = response.json().get("models") or []
        names = {str(item.get("name") or item.get("model")) for item in listed}
    except (ValueError, AttributeError):
        return "does not look like an Ollama server (GET /api/tags is not its model list)"
    missing = [model for model in models if not _pulled(model, names)]
    if missing:
        pull = "; ".join(f"ollama pull {model}" for model in missing)
        return f"has no model {', '.join(missing)} (pull it first: {pull})"
    return ""


def _pulled(model: str, names: set[str]) -> bool:
    """Ollama names a model ``name:tag``; ``llama3.2`` means ``llama3.2:latest``."""
    return model in names or (":" not in model and f"{model}:latest" in names)


async def _check_hosted(
    client: httpx.AsyncClient, endpoint: Endpoint, settings: ModelSettings
) -> str:
    check = HOSTED_CHECKS.get(endpoint.provider)
    if check is None:
        return ""
    key = ""
    if settings.model_api_key is not None:
        key = settings.model_api_key.get_secret_value()
    key = key or next((os.environ[name] for name in check.key_env if os.environ.get(name)), "")
    if not key:
        return ""  # building the model already demanded a key; nothing to check here
    headers = {check.header: f"{check.scheme}{key}", **dict(check.extra)}
    response = await _get(client, check.url, headers)
    if isinstance(response, str):
        return response
    if response.status_code in check.refused:
        return f"refused the API key (HTTP {response.status_code})"
    return ""


def _local_key(endpoint: Endpoint, settings: ModelSettings) -> str:
    if settings.model_api_key is not None and settings.model_api_key.get_secret_value():
        return settings.model_api_key.get_secret_value()
    if endpoint.provider == "openai":
        return os.environ.get("OPENAI_API_KEY", "")
    return ""


async def _get(
    client: httpx.AsyncClient, url: str, headers: dict[str, str]
) -> httpx.Response | str:
    """The response, or why there was none (a sentence fragment, no URL, no key)."""
    try:
        return await client.get(url, headers=headers)
    except httpx.ConnectTimeout:
        return f"did not accept a connection within {CONNECT_TIMEOUT_S:.0f} s"
    except httpx.ConnectError:
        return "cannot be reached (nothing accepted the connection)"
    except httpx.TimeoutException:
        return ""  # connected, but slow to answer: there, and probably busy
    except (httpx.UnsupportedProtocol, httpx.InvalidURL):
        return "has an address that is not an http(s) URL"
    except httpx.HTTPError as exc:
        return f"did not answer like an HTTP server ({type(exc).__name__})"
    except OSError as exc:
        return f"cannot be reached ({type(exc).__name__})"


async def require_models(settings: ModelSettings, gateway: Gateway) -> list[Unavailable]:
    """Run the preflight for a gateway built from ``settings``. An unreachable endpoint
    raises ConfigError, unless ``on_model_unavailable = "extractive"``: then its roles run
    on their deterministic fallbacks, the gateway's errors say so (the report's
    limitations), and the problems are returned for a warning event."""
    problems = await preflight(settings)
    if not problems:
        return []
    text = "; ".join(problem.describe() for problem in problems)
    if settings.on_model_unavailable == "fail":
        raise ConfigError(
            text,
            hint="start the server (Ollama: ollama serve) or fix --model-base-url, the model "
            "name or its key; or run without a model (--model none), or let runs fall back "
            'to an extractive report by themselves (on_model_unavailable = "extractive")',
        )
    roles = [role for problem in problems for role in problem.roles]
    gateway.disable(
        roles,
        f"{text}; the run went on without it, with deterministic fallbacks "
        '(on_model_unavailable = "extractive")',
    )
    return problems
