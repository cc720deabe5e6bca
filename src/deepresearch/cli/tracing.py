"""LangSmith tracing as ``deepresearch doctor`` checks it (seed 004's preflight).

LangChain and LangGraph trace a run to LangSmith when the environment says so
(``LANGSMITH_TRACING=true``, or the older ``LANGCHAIN_TRACING_V2=true``); they read the
key and the endpoint from the environment too, so deepresearch has no setting for them.
Doctor checks what they would use: that a key is there (never showing it) and that the
endpoint accepts it, with one ``GET /api/v1/sessions?limit=1`` (LangSmith's documented
API, authenticated by the ``X-Api-Key`` header).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import httpx

#: the variables that turn tracing on, as LangSmith's SDK reads them (the first set wins)
TRACING_FLAGS = ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2")
KEY_NAMES = ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY")
ENDPOINT_NAMES = ("LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT")
DEFAULT_ENDPOINT = "https://api.smith.langchain.com"
#: an authenticated read that any valid key may make: the first tracing project
PROBE_PATH = "/api/v1/sessions"
FIX_KEY = "set LANGSMITH_API_KEY, or turn tracing off (LANGSMITH_TRACING=false)"


@dataclass(frozen=True)
class Tracing:
    """Tracing as the environment configures it."""

    endpoint: str
    key: str | None


@dataclass(frozen=True)
class Probe:
    """What the endpoint said: ``ok``, a line for the table and what to do."""

    ok: bool
    detail: str
    fix: str = ""


def _first(environ: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    return next((environ[n].strip() for n in names if environ.get(n, "").strip()), None)


def tracing_config(environ: Mapping[str, str] | None = None) -> Tracing | None:
    """The tracing the environment turns on, or None when it is off."""
    env = os.environ if environ is None else environ
    flag = _first(env, TRACING_FLAGS)
    if flag is None or flag.lower() not in ("true", "1", "yes"):
        return None
    endpoint = _first(env, ENDPOINT_NAMES) or DEFAULT_ENDPOINT
    return Tracing(endpoint=endpoint.rstrip("/"), key=_first(env, KEY_NAMES))


async def probe_tracing(tracing: Tracing, *, timeout_s: float) -> Probe:
    """Whether the endpoint accepts the key. The key is sent, never shown: no message
    here holds it (an error's text is not repeated, only its kind)."""
    if not tracing.key:
        return Probe(False, "tracing is on but no API key is set", FIX_KEY)
    url = tracing.endpoint + PROBE_PATH
    fix_endpoint = "check LANGSMITH_ENDPOINT and the network, or turn tracing off"
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as client:
            response = await client.get(
                url, params={"limit": 1}, headers={"X-Api-Key": tracing.key}
            )
    except httpx.TimeoutException:
        return Probe(False, f"{tracing.endpoint}: no answer in {timeout_s:.0f} s", fix_endpoint)
    except httpx.HTTPError as exc:
        return Probe(False, f"{tracing.endpoint}: {type(exc).__name__}", fix_endpoint)
    if response.status_code in (401, 403):
        return Probe(
            False,
            f"{tracing.endpoint} refused the key (HTTP {response.status_code})",
            "check LANGSMITH_API_KEY (a LangSmith key, for this endpoint)",
        )
    if not response.is_success:
        return Probe(
            False, f"{tracing.endpoint} answered HTTP {response.status_code}", fix_endpoint
        )
    return Probe(True, f"{tracing.endpoint} accepts the key")
