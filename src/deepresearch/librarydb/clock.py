"""Times as the library stores them: UTC, and aware when read back (SQLite hands back
naive datetimes)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


def aware(value: datetime | None) -> datetime | None:
    """``value`` with UTC attached when it came back naive."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def utc(value: datetime | None) -> datetime | None:
    """``value`` in UTC (naive values are taken as UTC), as stored."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
