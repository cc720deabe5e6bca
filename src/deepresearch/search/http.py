"""What every web search adapter needs around one HTTP call.

``send`` performs a request on an injected ``httpx.AsyncClient`` with a per-attempt
timeout, bounded retries (exponential backoff with jitter, ``Retry-After`` honoured up to
a cap) on connection errors, timeouts, 429 and 5xx, an optional circuit breaker (timing and
breaker from ``deepresearch.resilience``), and maps every failure to our error tree:

    401/403 (or a provider's own "bad key" marker)  -> ProviderAuthError
    429 after retries                               -> RateLimited
    5xx, connect error, timeout after retries       -> ProviderUnavailable
    any other non-2xx                               -> ProviderError
    a body that is not a JSON object (``json_object``) -> ProviderError

Messages name the provider (``Target.label``), say what happened and what to do. They
never contain a request URL (Google puts its key in the query string), a header, or a
response body: a body is only ever searched for ``Target.auth_markers``.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import partial
from typing import Any, TypedDict, Unpack
from urllib.parse import urlsplit, urlunsplit

import httpx
from pydantic import SecretStr

from deepresearch.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from deepresearch.resilience import CircuitBreaker, parse_retry_after, retry_delay

Sleep = Callable[[float], Awaitable[None]]
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_SWITCH = "or choose another provider with --search"


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry. Tests set the delays to zero."""

    #: seed 001's retry strategy: 4 retries (5 attempts), backoff 0.5 s doubling to 4 s
    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 4.0
    #: a longer Retry-After is cut to this; waiting longer stalls the whole run
    max_retry_after_s: float = 10.0

    def backoff(self, attempt: int) -> float:
        """Delay before retry ``attempt`` (0-based): exponential, capped, half jittered."""
        return self.delay(attempt, None)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """The server's Retry-After (capped) when it gave one, else the backoff."""
        return retry_delay(
            attempt,
            retry_after,
            base_s=self.base_delay_s,
            cap_s=self.max_delay_s,
            max_retry_after_s=self.max_retry_after_s,
            jitter=random.random(),
        )


@dataclass(frozen=True)
class Target:
    """Who we are talking to, in words safe to show a user."""

    provider: str
    label: str
    auth_hint: str = f"the service refused access; try again later, {_SWITCH}"
    unreachable_hint: str = f"check your network connection and try again later, {_SWITCH}"
    #: strings whose presence in a 4xx body means "the key was refused" (Brave: 422)
    auth_markers: tuple[str, ...] = ()


def safe_origin(url: str) -> str:
    """``url`` without credentials, query or fragment: fit for an error message."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


class RequestParts(TypedDict, total=False):
    """What a request carries besides its method and URL; all optional."""

    params: Mapping[str, str | int] | None
    headers: Mapping[str, str] | None
    #: sent as a JSON body
    json_body: Any
    #: sent as an application/x-www-form-urlencoded body
    form: Mapping[str, str] | None


async def send(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    target: Target,
    timeout_s: float,
    retry: RetryPolicy,
    breaker: CircuitBreaker | None = None,
    sleep: Sleep = asyncio.sleep,
    **parts: Unpack[RequestParts],
) -> httpx.Response:
    """Return the first 2xx response, or raise the matching ``ProviderError``."""
    if breaker is not None and not breaker.allow():
        raise ProviderUnavailable(
            f"{target.label} failed repeatedly and is paused for a while",
            provider=target.provider,
            hint=f"try again in a minute, {_SWITCH}",
        )
    request = partial(
        client.request,
        method,
        url,
        params=parts.get("params"),
        headers=parts.get("headers"),
        json=parts.get("json_body"),
        data=parts.get("form"),
        timeout=httpx.Timeout(timeout_s),
    )
    try:
        response = await _with_retries(request, target, timeout_s, retry, sleep)
    except (ProviderUnavailable, RateLimited):
        if breaker is not None:
            breaker.record_failure()
        raise
    if breaker is not None:
        breaker.record_success()
    return response


async def _with_retries(
    request: Callable[[], Awaitable[httpx.Response]],
    target: Target,
    timeout_s: float,
    retry: RetryPolicy,
    sleep: Sleep,
) -> httpx.Response:
    attempt = 0
    while True:
        try:
            async with asyncio.timeout(timeout_s):
                response = await request()
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise ProviderError(
                f"{target.label} has an address that is not a valid http(s) URL",
                provider=target.provider,
                hint=target.unreachable_hint,
            ) from exc
        except (httpx.TimeoutException, TimeoutError) as exc:
            if attempt >= retry.max_retries:
                raise _unreachable(
                    target, f"did not answer within {timeout_s:g}s", attempt
                ) from exc
        except httpx.TransportError as exc:
            if attempt >= retry.max_retries:
                raise _unreachable(target, "could not be reached", attempt) from exc
        else:
            status = response.status_code
            if 200 <= status < 300:
                return response
            if status not in _RETRY_STATUSES or attempt >= retry.max_retries:
                raise _status_error(target, response, attempt)
            await sleep(_retry_delay(response, retry, attempt))
            attempt += 1
            continue
        await sleep(retry.backoff(attempt))
        attempt += 1


def _unreachable(target: Target, what: str, attempt: int) -> ProviderUnavailable:
    return ProviderUnavailable(
        f"{target.label} {what}{_tries(attempt)}",
        provider=target.provider,
        hint=target.unreachable_hint,
    )


def _tries(attempt: int) -> str:
    return f"; tried {attempt + 1} times" if attempt else ""


def _status_error(target: Target, response: httpx.Response, attempt: int) -> ProviderError:
    status = response.status_code
    where, provider = target.label, target.provider
    if status in (401, 403) or (400 <= status < 500 and _has_marker(response, target)):
        return ProviderAuthError(
            f"{where} refused the request (HTTP {status})", provider=provider, hint=target.auth_hint
        )
    if status == 429:
        return RateLimited(
            f"{where} kept answering 'too many requests' (HTTP 429){_tries(attempt)}",
            provider=provider,
            hint=f"wait a minute or lower --depth, {_SWITCH}",
        )
    if status >= 500:
        return ProviderUnavailable(
            f"{where} kept failing with HTTP {status}{_tries(attempt)}",
            provider=provider,
            hint=f"the service may be down; try again later, {_SWITCH}",
        )
    return ProviderError(
        f"{where} rejected the request (HTTP {status})",
        provider=provider,
        hint=f"the query may be unsupported or the account limited, {_SWITCH}",
    )


def _has_marker(response: httpx.Response, target: Target) -> bool:
    if not target.auth_markers:
        return False
    body = response.text
    return any(marker in body for marker in target.auth_markers)


def _retry_delay(response: httpx.Response, retry: RetryPolicy, attempt: int) -> float:
    """Retry-After (seconds or HTTP date) capped at ``max_retry_after_s``, else backoff."""
    return retry.delay(attempt, parse_retry_after(response.headers.get("retry-after")))


def json_object(response: httpx.Response, target: Target, *, hint: str = "") -> dict[str, Any]:
    """The response body as a JSON object, or ProviderError (never echoing the body)."""
    try:
        data = json.loads(response.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _bad_body(target, "is not valid JSON", hint) from exc
    if not isinstance(data, dict):
        raise _bad_body(target, "is not a JSON object", hint)
    return data


def _bad_body(target: Target, what: str, hint: str) -> ProviderError:
    return ProviderError(
        f"{target.label} sent a response that {what}",
        provider=target.provider,
        hint=hint or f"the service may have changed its API; try again later, {_SWITCH}",
    )


def items(data: Mapping[str, Any], *path: str) -> list[dict[str, Any]]:
    """The list of objects at ``data[path[0]][path[1]]...``; anything else becomes []."""
    node: Any = data
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    if not isinstance(node, list):
        return []
    return [entry for entry in node if isinstance(entry, dict)]


def text_field(entry: Mapping[str, Any], *keys: str) -> str:
    """The first non-empty string among ``entry[key]`` for ``keys``, stripped."""
    for key in keys:
        value = entry.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def number_field(entry: Mapping[str, Any], key: str) -> float | None:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


_DATE_FORMATS = ("%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%Y/%m/%d")


def parse_published(value: object) -> datetime | None:
    """Parse a provider's date leniently (ISO 8601, RFC 2822, "March 4, 2024"); else None.

    Relative dates ("3 days ago") give None: they depend on when they were read. Naive
    results are taken as UTC so every ``published`` compares with every other.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    parsed = _parse_date(text)
    if parsed is None:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _parse_date(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None


def reveal(key: SecretStr | str) -> str:
    """The plain key, for the one header or parameter that carries it."""
    return key.get_secret_value() if isinstance(key, SecretStr) else key
