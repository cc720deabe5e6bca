"""``deepresearch watch`` (issue 25): add, list, pause, resume, run-now, show, rm in the
service's database; a bad schedule, one that runs too often, too many watches, an
unknown watch or thread: one line, exit 2, nothing stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import cli


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"),
        "DEEPRESEARCH_MAX_WATCHES_PER_KEY": "1",
    }


def _refused(done: Any, *needles: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    first = done.stderr.splitlines()[0]
    for needle in needles:
        assert needle in first, done.stderr


def _listed(env: dict[str, str]) -> list[str]:
    done = cli("watch", "list", env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _report_a_failed_run(data_dir: Path) -> None:
    from sqlalchemy import update

    from deepresearch.service.db import open_database
    from deepresearch.service.store import JobStore
    from deepresearch.service.tables import research_jobs
    from deepresearch.service.watch_scheduler import WatchScheduler, due_after
    from deepresearch.settings import load_settings
    from deepresearch.settings_groups import ServiceSettings

    settings = load_settings(data_dir=data_dir)
    store = JobStore(open_database(settings))
    [(_, job)] = store.claim_due(due_after, ttl_s=60)
    with store.engine.begin() as conn:
        conn.execute(
            update(research_jobs).where(research_jobs.c.id == job.id).values(status="FAILED")
        )
    assert WatchScheduler(store, ServiceSettings.of(settings)).tick() == (0, 1)
    store.engine.dispose()


def test_watch_commands(env: dict[str, str]) -> None:
    q = "What is new in CPython?"
    _refused(cli("watch", "add", q, "--cron", "* * * * * *", env=env), "every 1 s")
    _refused(cli("watch", "add", q, "--cron", "nope", env=env), "not a cron expression")
    _refused(cli("watch", "add", q, "--every", "1y", env=env), "not a duration")
    _refused(cli("watch", "add", q, env=env), "give a schedule")
    _refused(cli("watch", "add", q, "--every", "1d", "--thread", "run-1", env=env), "no finished")
    hook = ("--every", "1d", "--webhook")
    _refused(cli("watch", "add", q, *hook, "https://192.168.1.1/in", env=env), "private")
    assert _listed(env) == []

    added = cli("watch", "add", q, "--cron", "0 7 * * *", env=env)
    assert added.returncode == 0, added.stderr
    watch_id = added.stdout.strip()
    _refused(cli("watch", "add", q, "--every", "1d", env=env), "at most 1 watches")
    [line] = _listed(env)
    assert line.startswith(f"{watch_id}\tactive\t0 7 * * *\t") and q in line

    assert cli("watch", "pause", watch_id, env=env).returncode == 0
    assert "\tpaused\t" in _listed(env)[0]
    _refused(cli("watch", "run-now", watch_id, env=env), "paused")
    assert cli("watch", "resume", watch_id, env=env).returncode == 0
    assert cli("watch", "run-now", watch_id, env=env).returncode == 0
    shown = cli("watch", "show", watch_id, env=env)
    assert shown.returncode == 0 and "no change report yet" in shown.stderr
    _refused(cli("watch", "show", watch_id, "--format", "pdf", env=env), "choose md")
    # a due time whose job failed: its report says so, in every text format
    _report_a_failed_run(Path(env["DEEPRESEARCH_DATA_DIR"]))
    shown = cli("watch", "show", watch_id, "--format", "json", env=env)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["summary"].startswith("the run did not finish")
    assert "the run did not finish" in shown.stderr  # the runs, one line each
    # another key's view: the watch is not there
    _refused(cli("watch", "pause", watch_id, "--key", "key_other", env=env), "no watch")
    assert cli("watch", "list", "--key", "key_other", env=env).stdout == ""
    for verb in ("pause", "resume", "rm", "run-now", "show"):
        _refused(cli("watch", verb, "w0000", env=env), "no watch")
    assert cli("watch", "rm", watch_id, env=env).returncode == 0
    assert _listed(env) == []
