"""Stable, content-derived identifiers."""

from __future__ import annotations

import re

from deepresearch.core.ids import new_run_id, source_id


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
