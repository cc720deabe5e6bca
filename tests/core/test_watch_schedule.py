"""A watch's schedule: durations, cron expressions (read by croniter), the shortest
interval refused, and a missed stretch run once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from deepresearch.core.watch_schedule import (
    Schedule,
    ScheduleError,
    check_interval,
    next_due,
    parse_cron,
    parse_every,
    parse_stored,
    schedule_of,
    shortest_gap_s,
)

NOW = datetime(2026, 11, 28, 6, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "seconds"), [("30m", 1800), ("6h", 21600), ("1d", 86400), ("2w", 1209600)]
)
def test_every(text: str, seconds: int) -> None:
    schedule = parse_every(text)
    assert schedule.every_s == seconds
    assert parse_stored(schedule.text) == schedule


@pytest.mark.parametrize("text", ["", "1", "1y", "d", "-1d", "0m", "1.5h"])
def test_every_refused(text: str) -> None:
    with pytest.raises(ScheduleError, match="--every"):
        parse_every(text)


def test_cron_next_due() -> None:
    schedule = parse_cron("0 7 * * *")
    assert next_due(schedule, NOW) == datetime(2026, 11, 28, 7, 0, tzinfo=UTC)
    assert next_due(schedule, datetime(2026, 11, 28, 7, 0, tzinfo=UTC)) == datetime(
        2026, 11, 29, 7, 0, tzinfo=UTC
    )
    assert parse_stored(schedule.text) == schedule


@pytest.mark.parametrize("text", ["bad", "61 * * * *", "* * *", "0 7 * * * * * *"])
def test_cron_refused(text: str) -> None:
    with pytest.raises(ScheduleError, match="not a cron expression"):
        parse_cron(text)


def test_every_second_refused() -> None:
    """Six fields, seconds included: a cron expression firing every second."""
    schedule = parse_cron("* * * * * *")
    assert shortest_gap_s(schedule, NOW) == 1
    with pytest.raises(ScheduleError, match="every 1 s"):
        check_interval(schedule, 900, NOW)


def test_shortest_gap_of_an_uneven_cron() -> None:
    # 7:00 and 7:05 every day: the gap that counts is five minutes
    assert shortest_gap_s(parse_cron("0,5 7 * * *"), NOW) == 300


def test_minimum_interval() -> None:
    check_interval(Schedule(every_s=900), 900, NOW)
    with pytest.raises(ScheduleError, match="watch_min_interval_s"):
        check_interval(Schedule(every_s=899), 900, NOW)


def test_a_missed_stretch_runs_once() -> None:
    """A scheduler down for three days finds one due time, and the next is after now."""
    schedule = parse_every("1d")
    due = next_due(schedule, NOW - timedelta(days=3))
    assert due < NOW
    assert next_due(schedule, NOW) > NOW


def test_schedule_of_needs_exactly_one() -> None:
    with pytest.raises(ScheduleError, match="give a schedule"):
        schedule_of(every=None, cron=None, minimum_s=60, now=NOW)
    with pytest.raises(ScheduleError, match="give a schedule"):
        schedule_of(every="1d", cron="0 7 * * *", minimum_s=60, now=NOW)
    assert schedule_of(every="1d", cron=None, minimum_s=60, now=NOW).every_s == 86400
