"""A watch's schedule, pure (issue 25): ``--every 1d`` / ``6h`` / ``30m`` or a cron
expression (read by croniter, never by us), its shortest interval checked against the
limit, and the next due time after a given instant.

A scheduler that was down finds the due time in the past: the watch runs once and its
next due time is the first one after *now* (``next_due(schedule, now)``), so a missed
stretch is one run, not one per missed interval."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from croniter import CroniterBadCronError, CroniterBadDateError, croniter

_EVERY = re.compile(r"^\s*(\d{1,6})\s*([smhdw])\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800}
#: how many consecutive cron firings are looked at for the shortest gap
_CRON_SAMPLES = 64
_CRON_FIELDS = (5, 6)


class ScheduleError(ValueError):
    """A schedule that cannot be used: the message says what to write instead."""


@dataclass(frozen=True)
class Schedule:
    """``every_s`` for an interval, else ``cron`` (a cron expression)."""

    every_s: int | None = None
    cron: str | None = None

    @property
    def text(self) -> str:
        """The stored form: ``every <seconds>s`` or the cron expression."""
        return f"every {self.every_s}s" if self.every_s is not None else str(self.cron)


def parse_every(text: str) -> Schedule:
    """``30m``, ``6h``, ``1d``, ``2w`` (or seconds, ``900s``) as a schedule."""
    match = _EVERY.match(text)
    if match is None:
        raise ScheduleError(f"--every {text!r} is not a duration; write e.g. 30m, 6h, 1d or 1w")
    seconds = int(match.group(1)) * _UNIT_S[match.group(2)]
    if seconds <= 0:
        raise ScheduleError(f"--every {text!r} is zero; write e.g. 30m, 6h or 1d")
    return Schedule(every_s=seconds)


def parse_cron(text: str) -> Schedule:
    """A cron expression of five fields (or six, seconds last, as croniter reads it)."""
    expr = " ".join(text.split())
    if len(expr.split(" ")) not in _CRON_FIELDS or not croniter.is_valid(expr):
        raise ScheduleError(
            f"--cron {text!r} is not a cron expression; write five fields, e.g. '0 7 * * *'"
        )
    return Schedule(cron=expr)


def parse_stored(text: str) -> Schedule:
    """A schedule as ``Schedule.text`` stored it."""
    if text.startswith("every ") and text.endswith("s"):
        return Schedule(every_s=int(text.removeprefix("every ").removesuffix("s")))
    return parse_cron(text)


def shortest_gap_s(schedule: Schedule, start: datetime) -> float:
    """The shortest time the schedule leaves between two runs (for a cron expression,
    the least gap among its next firings after ``start``)."""
    if schedule.every_s is not None:
        return float(schedule.every_s)
    times = croniter(str(schedule.cron), start)
    previous = times.get_next(datetime)
    gap = float("inf")
    for _ in range(_CRON_SAMPLES):
        current = times.get_next(datetime)
        gap = min(gap, (current - previous).total_seconds())
        previous = current
    return gap


def check_interval(schedule: Schedule, minimum_s: float, now: datetime) -> None:
    """Refuse a schedule that would run more often than every ``minimum_s`` seconds."""
    gap = shortest_gap_s(schedule, now)
    if gap < minimum_s:
        raise ScheduleError(
            f"{schedule.text!r} would run every {gap:g} s; watches run at most every "
            f"{minimum_s:g} s (watch_min_interval_s)"
        )


def next_due(schedule: Schedule, after: datetime) -> datetime:
    """The first due time strictly after ``after`` (UTC)."""
    after = after.astimezone(UTC)
    if schedule.every_s is not None:
        return after + timedelta(seconds=schedule.every_s)
    try:
        due: datetime = croniter(str(schedule.cron), after).get_next(datetime)
    except (CroniterBadCronError, CroniterBadDateError) as exc:
        raise ScheduleError(f"{schedule.text!r} never fires again") from exc
    return due.astimezone(UTC)


def schedule_of(
    *, every: str | None, cron: str | None, minimum_s: float, now: datetime
) -> Schedule:
    """The schedule a person gave (exactly one of ``every`` and ``cron``), checked
    against the shortest interval allowed."""
    if (every is None) == (cron is None):
        raise ScheduleError("give a schedule: --every (30m, 6h, 1d) or --cron '0 7 * * *'")
    schedule = parse_every(every) if every is not None else parse_cron(str(cron))
    check_interval(schedule, minimum_s, now)
    return schedule
