"""Classify a failed model call without importing any provider SDK.

Provider SDKs and LangChain integrations raise their own exception types. The gateway
must decide "retry or give up" for all of them, so it looks only at what they have in
common: an HTTP status on the exception (``status_code``, ``response.status_code``,
``code``, ``status``), the class names in its MRO (``RateLimitError``,
``APIConnectionError``, ``InternalServerError``, ``ServiceUnavailable``, LangChain's
``ModelRateLimitError``...), the builtin ``TimeoutError`` / ``ConnectionError``, and a
``retry-after`` header on ``exc.response`` when there is one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from deepresearch.resilience import parse_retry_after

_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})


class FailureKind(Enum):
    """What went wrong, as far as retrying and user messages care."""

    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"  # 5xx or overloaded
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    AUTH = "auth"  # 401 / 403: the key was refused
    NOT_FOUND = "not_found"  # 404: usually an unknown model name
    BAD_REQUEST = "bad_request"  # 400 / 422, context overflow
    OTHER = "other"

    @property
    def retryable(self) -> bool:
        return self in _RETRYABLE_KINDS

    @property
    def disables_model(self) -> bool:
        """Failures that will recur on every call: stop calling this model."""
        return self in (FailureKind.AUTH, FailureKind.NOT_FOUND)


_RETRYABLE_KINDS = frozenset(
    {FailureKind.RATE_LIMITED, FailureKind.UNAVAILABLE, FailureKind.TIMEOUT, FailureKind.CONNECTION}
)

# Class names (anywhere in the MRO) that identify a failure when no status is attached.
_NAMED: tuple[tuple[FailureKind, frozenset[str]], ...] = (
    (
        FailureKind.AUTH,
        frozenset(
            {
                "AuthenticationError",
                "ModelAuthenticationError",
                "PermissionDeniedError",
                "ModelPermissionDeniedError",
                "Unauthenticated",
                "PermissionDenied",
            }
        ),
    ),
    (
        FailureKind.RATE_LIMITED,
        frozenset(
            {"RateLimitError", "ModelRateLimitError", "ResourceExhausted", "TooManyRequests"}
        ),
    ),
    (
        FailureKind.TIMEOUT,
        frozenset(
            {
                "APITimeoutError",
                "ModelTimeoutError",
                "TimeoutException",
                "ReadTimeout",
                "WriteTimeout",
                "PoolTimeout",
                "DeadlineExceeded",
            }
        ),
    ),
    (
        FailureKind.CONNECTION,
        frozenset(
            {
                "APIConnectionError",
                "ModelConnectionError",
                "ConnectError",
                "ConnectTimeout",
                "ReadError",
                "WriteError",
                "RemoteProtocolError",
                "NetworkError",
                "TransportError",
            }
        ),
    ),
    (
        FailureKind.UNAVAILABLE,
        frozenset(
            {
                "InternalServerError",
                "ModelAPIError",
                "ServiceUnavailable",
                "ServiceUnavailableError",
                "OverloadedError",
                "ServerError",
                "BadGatewayError",
                "GatewayTimeoutError",
            }
        ),
    ),
    (
        FailureKind.NOT_FOUND,
        frozenset({"NotFoundError", "ModelNotFoundError"}),
    ),
    (
        FailureKind.BAD_REQUEST,
        frozenset(
            {
                "BadRequestError",
                "ModelInvalidRequestError",
                "ContextOverflowError",
                "UnprocessableEntityError",
                "InvalidArgument",
            }
        ),
    ),
)


@dataclass(frozen=True)
class Failure:
    """One classified exception."""

    kind: FailureKind
    status: int | None = None
    retry_after_s: float | None = None

    @property
    def retryable(self) -> bool:
        return self.kind.retryable

    def describe(self) -> str:
        """A short verb phrase for users and logs, e.g. ``'was rate limited (HTTP 429)'``."""
        phrase = _PHRASES[self.kind]
        return f"{phrase} (HTTP {self.status})" if self.status else phrase


_PHRASES = {
    FailureKind.RATE_LIMITED: "was rate limited",
    FailureKind.UNAVAILABLE: "was unavailable",
    FailureKind.TIMEOUT: "timed out",
    FailureKind.CONNECTION: "was unreachable",
    FailureKind.AUTH: "refused the API key",
    FailureKind.NOT_FOUND: "was not found",
    FailureKind.BAD_REQUEST: "rejected the request",
    FailureKind.OTHER: "failed",
}


def classify(exc: BaseException) -> Failure:
    """Classify ``exc`` by HTTP status first, then by class name."""
    status = status_of(exc)
    retry_after = retry_after_s(exc)
    if status is not None:
        kind = _kind_for_status(status)
        if kind is not None:
            return Failure(kind, status, retry_after)
    kind = _kind_for_names(exc)
    if kind is None:
        if isinstance(exc, TimeoutError):
            kind = FailureKind.TIMEOUT
        elif isinstance(exc, ConnectionError):
            kind = FailureKind.CONNECTION
        else:
            kind = FailureKind.OTHER
    return Failure(kind, status, retry_after)


def _kind_for_status(status: int) -> FailureKind | None:
    if status == 429:
        return FailureKind.RATE_LIMITED
    if status in (401, 403):
        return FailureKind.AUTH
    if status == 404:
        return FailureKind.NOT_FOUND
    if status == 408:
        return FailureKind.TIMEOUT
    if status in _RETRYABLE_STATUS or status >= 500:
        return FailureKind.UNAVAILABLE
    if 400 <= status < 500:
        return FailureKind.BAD_REQUEST
    return None


def _kind_for_names(exc: BaseException) -> FailureKind | None:
    names = {cls.__name__ for cls in type(exc).__mro__}
    for kind, known in _NAMED:
        if names & known:
            return kind
    return None


def status_of(exc: BaseException) -> int | None:
    """The HTTP status attached to ``exc``, if any provider put one there."""
    for candidate in (
        getattr(exc, "status_code", None),
        getattr(getattr(exc, "response", None), "status_code", None),
        getattr(exc, "code", None),
        getattr(exc, "status", None),
    ):
        if (
            isinstance(candidate, int)
            and not isinstance(candidate, bool)
            and 100 <= candidate < 600
        ):
            return candidate
    return None


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` / ``retry-after``), if any."""
    headers: Any = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None or not hasattr(headers, "get"):
        return None
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000)
    value = headers.get("retry-after")
    if isinstance(value, str):
        return parse_retry_after(value)
    seconds = _number(value)
    return None if seconds is None else max(0.0, seconds)


def _number(value: object) -> float | None:
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return None
    try:
        return float(value)
    except ValueError:
        return None
