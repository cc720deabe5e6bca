"""Redaction of secrets, and classification of provider exceptions without SDK imports."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from deepresearch.llm.failures import FailureKind, classify, retry_after_s
from deepresearch.llm.redact import REDACTED, redact


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("Incorrect API key provided: sk-proj-AbCdEf1234567890xyz", "sk-proj-AbCdEf1234567890xyz"),
        ("Incorrect API key provided: sk-bad-k**********2345.", "sk-bad-k**********2345"),
        ("invalid x-api-key sk-ant-api03-abcdefghijklmnop", "sk-ant-api03-abcdefghijklmnop"),
        (
            "key AIzaSyA1234567890abcdefghijklmnopqrs rejected",
            "AIzaSyA1234567890abcdefghijklmnopqrs",
        ),
        ("Authorization: Bearer abc.def-ghi_jkl", "abc.def-ghi_jkl"),
        ("GET https://x.test/v1/models?key=s3cr3tvalue&alt=json", "s3cr3tvalue"),
        ('{"x-api-key": "plainsecret99"}', "plainsecret99"),
    ],
)
def test_redacts_key_shaped_strings(text: str, gone: str) -> None:
    out = redact(text)
    assert gone not in out
    assert REDACTED in out


def test_redacts_configured_secrets_of_any_shape() -> None:
    out = redact("server said: token hunter2hunter2 is wrong", ["hunter2hunter2"])
    assert out == f"server said: token {REDACTED} is wrong"


def test_short_placeholders_are_not_replaced_verbatim() -> None:
    assert redact("x marks the spot", ["x"]) == "x marks the spot"


def test_leaves_ordinary_text_alone() -> None:
    text = "model gpt-4.1-mini timed out after 3 attempts (task-sk is fine)"
    assert redact(text) == text


class RateLimitError(Exception):
    """Named like the SDKs' class; carries no status."""


class APIConnectionError(Exception):
    pass


class ResourceExhausted(Exception):
    pass


def _status_error(status: int, headers: dict[str, str] | None = None) -> Exception:
    exc = Exception("boom")
    exc.response = SimpleNamespace(status_code=status, headers=headers or {})  # type: ignore[attr-defined]
    return exc


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (_status_error(429), FailureKind.RATE_LIMITED),
        (_status_error(500), FailureKind.UNAVAILABLE),
        (_status_error(503), FailureKind.UNAVAILABLE),
        (_status_error(529), FailureKind.UNAVAILABLE),
        (_status_error(401), FailureKind.AUTH),
        (_status_error(403), FailureKind.AUTH),
        (_status_error(404), FailureKind.NOT_FOUND),
        (_status_error(400), FailureKind.BAD_REQUEST),
        (RateLimitError("slow down"), FailureKind.RATE_LIMITED),
        (ResourceExhausted("quota"), FailureKind.RATE_LIMITED),
        (APIConnectionError("refused"), FailureKind.CONNECTION),
        (TimeoutError(), FailureKind.TIMEOUT),
        (ConnectionRefusedError(), FailureKind.CONNECTION),
        (ValueError("odd"), FailureKind.OTHER),
    ],
)
def test_classifies_by_status_then_name(exc: Exception, kind: FailureKind) -> None:
    assert classify(exc).kind is kind


def test_status_attributes_are_found_where_sdks_put_them() -> None:
    direct = Exception()
    direct.status_code = 429  # type: ignore[attr-defined]
    coded = Exception()
    coded.code = 503  # type: ignore[attr-defined]
    textual = Exception()
    textual.code = "invalid_api_key"  # type: ignore[attr-defined]
    assert classify(direct).status == 429
    assert classify(coded).kind is FailureKind.UNAVAILABLE
    assert classify(textual).kind is FailureKind.OTHER


def test_retryable_kinds() -> None:
    assert classify(_status_error(429)).retryable
    assert classify(_status_error(502)).retryable
    assert not classify(_status_error(401)).retryable
    assert not classify(_status_error(400)).retryable


def test_retry_after_header_forms() -> None:
    assert retry_after_s(_status_error(429, {"retry-after": "3"})) == 3.0
    assert retry_after_s(_status_error(429, {"retry-after-ms": "250"})) == 0.25
    assert retry_after_s(_status_error(429, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0
    assert retry_after_s(_status_error(429)) is None
    assert retry_after_s(ValueError()) is None
