"""Retry timing: how long to wait before the next attempt.

``backoff_delay`` is exponential backoff with "equal jitter": the ``attempt``-th retry
(0-based) waits ``step = min(cap_s, base_s * 2**attempt)``, half of it fixed and the
other half scaled by ``jitter`` in [0, 1] (callers pass ``random.random()``, tests a
constant). The fixed half keeps retries from hammering; the jittered half spreads
clients that failed together.

``parse_retry_after`` reads a ``Retry-After`` header (RFC 9110 §10.2.3): delta-seconds
(a decimal fraction is accepted) or an HTTP date, as seconds from ``now``; a date in the
past is 0. Anything else (empty, negative, "soon", not finite) is None, so the caller
falls back to its backoff. ``max_s`` clamps it: waiting as long as a server asks can
stall a whole run.

``retry_delay`` combines them the way every caller does: the server's wait when it named
one (capped), else the backoff.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

_DELTA_SECONDS = re.compile(r"\d+(?:\.\d+)?")


def backoff_delay(attempt: int, *, base_s: float, cap_s: float, jitter: float) -> float:
    """Seconds to wait before retry ``attempt`` (0-based); see the module docstring."""
    # the exponent is bounded so a huge attempt number cannot overflow the float power
    step = min(cap_s, base_s * 2.0 ** min(max(attempt, 0), 64))
    return step / 2 + step / 2 * min(max(jitter, 0.0), 1.0)


def parse_retry_after(
    value: str | None, *, now: datetime | None = None, max_s: float | None = None
) -> float | None:
    """``Retry-After`` as seconds from ``now`` (default: the current UTC time), or None."""
    text = (value or "").strip()
    if not text:
        return None
    if _DELTA_SECONDS.fullmatch(text):
        seconds = float(text)
    else:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:  # RFC 5322 "-0000": UTC, as HTTP dates always are
            when = when.replace(tzinfo=UTC)
        seconds = max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
    if max_s is not None:
        seconds = min(seconds, max_s)
    return seconds if math.isfinite(seconds) else None


def retry_delay(
    attempt: int,
    retry_after: float | None,
    *,
    base_s: float,
    cap_s: float,
    max_retry_after_s: float,
    jitter: float,
) -> float:
    """The server's ``retry_after`` (capped at ``max_retry_after_s``) when it gave one,
    else ``backoff_delay(attempt, ...)``."""
    if retry_after is not None:
        return max(0.0, min(retry_after, max_retry_after_s))
    return backoff_delay(attempt, base_s=base_s, cap_s=cap_s, jitter=jitter)
