"""Stable, content-derived identifiers, and the rule for run ids given to us."""

from __future__ import annotations

import re

import pytest

from deepresearch.core.ids import check_run_id, new_run_id, run_id_problem, source_id
from deepresearch.errors import InvalidInput


def test_source_id_is_stable_and_url_specific() -> None:
    a = source_id("https://example.com/a")
    assert a == source_id("https://example.com/a")
    assert a != source_id("https://example.com/b")
    assert re.fullmatch(r"s[0-9a-f]{10}", a)


def test_source_id_known_value() -> None:
    # sha1("https://example.com/") starts with these hex digits; resumed runs rely on it
    import hashlib

    digest = hashlib.sha1(b"https://example.com/").hexdigest()
    assert source_id("https://example.com/") == "s" + digest[:10]


def test_run_ids_are_fresh() -> None:
    ids = {new_run_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(re.fullmatch(r"run-[0-9a-f]{12}", run_id) for run_id in ids)


# run ids given to us (CLI, library, API): one rule, checked before any work ----------
VALID_RUN_IDS = ["run-3f9a1c2b7d4e", "my_run.2", "A", "x" * 64, "2024-05-01.nightly", "a..b"]
INVALID_RUN_IDS = [
    "",
    "../../escaped",
    "../../tmp/x/evil",
    "a/b",
    "a\\b",
    "/abs",
    ".",
    "..",
    "...",
    ".hidden",
    "-flag",
    "trailing.",
    "sp ace",
    "tab\tid",
    "nul\x00id",
    "esc\x1b]0;t\x07",
    "new\nline",
    "über",
    "ｒｕｎ",  # fullwidth letters look like ASCII but are not
    "x" * 65,
    "CON",
    "nul",
    "com1",
    "LPT9.log",
    "run?id",
    "run#1",
    "run%2F..",
    "~",
]


@pytest.mark.parametrize("run_id", VALID_RUN_IDS)
def test_valid_run_ids_pass(run_id: str) -> None:
    assert run_id_problem(run_id) is None
    assert check_run_id(run_id) == run_id


@pytest.mark.parametrize("run_id", INVALID_RUN_IDS)
def test_invalid_run_ids_are_refused_with_a_reason(run_id: str) -> None:
    problem = run_id_problem(run_id)
    assert problem
    with pytest.raises(InvalidInput) as caught:
        check_run_id(run_id)
    # the message quotes the id escaped: no raw control character reaches a terminal
    assert not any(ord(char) < 32 for char in caught.value.message)
    assert caught.value.hint


def test_generated_run_ids_are_valid() -> None:
    assert all(run_id_problem(new_run_id()) is None for _ in range(50))
