"""Scrub secrets out of text before it is stored, logged or shown.

Every error message that leaves the model gateway passes through :func:`redact`. It
removes the secrets the user configured (exact matches) and anything shaped like a
credential even when we were never told about it: provider key prefixes (``sk-``,
``sk-ant-``, ``AIza``, ``gsk_``, ``xai-``, ``tvly-``, ``hf_``), ``Bearer`` tokens,
API-key headers echoed back in an error body, and ``key=`` / ``api_key=`` query
parameters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[redacted]"

# Configured secrets shorter than this are not replaced verbatim: a placeholder such as
# "x" would otherwise blank out every letter x in a message. The patterns below still apply.
MIN_SECRET_LENGTH = 6

_KEY_SHAPES = re.compile(
    r"""
      \bsk-ant-[A-Za-z0-9_\-*]{6,}      # Anthropic
    | \bsk-[A-Za-z0-9_\-*]{6,}          # OpenAI (sk-..., sk-proj-...), also masked echoes
    | \bAIza[0-9A-Za-z_\-]{20,}         # Google
    | \bgsk_[A-Za-z0-9]{16,}            # Groq
    | \bxai-[A-Za-z0-9]{16,}            # xAI
    | \btvly-[A-Za-z0-9\-]{10,}         # Tavily
    | \bhf_[A-Za-z0-9]{16,}             # Hugging Face
    """,
    re.VERBOSE,
)
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=\-]{4,}")
_HEADER = re.compile(
    r"""(?ix)
    \b(x-api-key|x-goog-api-key|api[_-]?key|authorization|access[_-]?token)
    (["']?\s*[:=]\s*["']?)
    (?!bearer\b)[^\s"',;&}]+
    """
)
_QUERY_KEY = re.compile(r"(?i)([?&](?:api[_-]?)?key=)[^&\s\"'#]+")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with configured ``secrets`` and credential-shaped strings replaced."""
    for secret in sorted(
        {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True
    ):
        text = text.replace(secret, REDACTED)
    text = _BEARER.sub(rf"\1 {REDACTED}", text)
    text = _HEADER.sub(rf"\1\2{REDACTED}", text)
    text = _QUERY_KEY.sub(rf"\1{REDACTED}", text)
    return _KEY_SHAPES.sub(REDACTED, text)
