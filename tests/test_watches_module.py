"""``deepresearch.watches`` (issue 25): the local owner's watches from Python, in the
same service database as ``deepresearch watch``; its docstring example runs here."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from deepresearch import watches
from deepresearch.errors import InvalidInput
from deepresearch.models.library import LOCAL_OWNER
from deepresearch.service.db import open_database
from deepresearch.service.store import JobStore
from deepresearch.settings import load_settings


def test_the_docstring_example_runs(tmp_path: Path) -> None:
    finder = doctest.DocTestFinder(exclude_empty=True)
    (test,) = [t for t in finder.find(watches) if t.name == "deepresearch.watches"]
    test.globs["folder"] = tmp_path
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_the_cli_and_python_share_the_local_owners_watches(tmp_path: Path) -> None:
    added = watches.add("Is the sky blue?", cron="0 7 * * *", data_dir=tmp_path)
    settings = load_settings(data_dir=tmp_path)
    store = JobStore(open_database(settings))
    assert [w.id for w in store.list_watches(LOCAL_OWNER)] == [added.id]
    other = store.add_watch(
        owner="key-b",
        question="another key's",
        schedule="every 1d",
        options={},
        first_due=store.clock(),
        thread=None,
        max_watches=5,
    )
    assert [w.id for w in watches.list_watches(settings=settings)] == [added.id]
    for call in (watches.pause, watches.resume, watches.run_now, watches.reports):
        with pytest.raises(InvalidInput, match="no watch"):
            call(other.id, settings=settings)
    with pytest.raises(InvalidInput, match="no watch"):
        watches.remove(other.id, settings=settings)
    assert store.get_watch(other.id, "key-b") is not None
    assert watches.run_now(added.id, settings=settings).id == added.id


@pytest.mark.parametrize(
    ("every", "cron"), [(None, None), ("1s", None), (None, "* * * * * *"), ("soon", None)]
)
def test_a_bad_schedule_is_refused_and_nothing_stored(
    tmp_path: Path, every: str | None, cron: str | None
) -> None:
    with pytest.raises(InvalidInput):
        watches.add("q?", every=every, cron=cron, data_dir=tmp_path)
    assert watches.list_watches(data_dir=tmp_path) == []


def test_a_paused_watch_cannot_run_now_and_the_limit_holds(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, max_watches_per_key=1)
    first = watches.add("q?", every="1d", settings=settings)
    watches.pause(first.id, settings=settings)
    with pytest.raises(InvalidInput, match="paused"):
        watches.run_now(first.id, settings=settings)
    with pytest.raises(InvalidInput, match="at most 1"):
        watches.add("another?", every="1d", settings=settings)
    with pytest.raises(InvalidInput, match="empty"):
        watches.add("  ", every="1d", settings=settings)
