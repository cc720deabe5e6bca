"""The library's query rules (``core/library_query.py``), on hand-made inputs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from deepresearch.core.library_query import (
    MAX_QUERY_CHARS,
    best_lines,
    fts5_match,
    normalize_tag,
    parse_query,
    query_words,
)
from deepresearch.errors import InvalidInput


def test_a_query_and_its_filters_are_checked_and_normalised() -> None:
    query = parse_query(
        "  Tokamak   confinement tokamak ",
        {
            "since": "2026-11-01",
            "until": "2026-11-02",
            "domain": "WWW.ITER.org",
            "run": "run-1",
            "tag": " Fusion  Q3 ",
            "recipe": "research",
            "kind": "quote",
            "limit": "5",
            "ignored": None,
        },
    )
    assert query.text == "Tokamak confinement tokamak"
    assert query.words == ["tokamak", "confinement"]
    assert query.since == datetime(2026, 11, 1, tzinfo=UTC)
    assert query.until == datetime(2026, 11, 3, tzinfo=UTC)  # the whole last day
    assert (query.domain, query.tag, query.kind, query.limit) == (
        "iter.org",
        "fusion q3",
        "quote",
        5,
    )


@pytest.mark.parametrize(
    ("text", "filters", "message"),
    [
        ("", {}, "empty"),
        (" \x1b[2J \x07 ", {}, "empty"),
        ("x" * (MAX_QUERY_CHARS + 1), {}, "longer than"),
        ("a" * 10_000, {}, "longer than"),
        ("?! …", {}, "no words"),
        ("a", {"colour": "red"}, "unknown search filter 'colour'"),
        ("a", {"since": "last week"}, "not a date"),
        ("a", {"since": "2026-02-02", "until": "2026-01-01"}, "not before"),
        ("a", {"domain": "not a domain"}, "not a domain"),
        ("a", {"run": "../etc"}, "--run"),
        ("a", {"tag": "<script>"}, "not a tag"),
        ("a", {"tag": "x" * 65}, "at most 64"),
        ("a", {"recipe": "Research!"}, "not a recipe"),
        ("a", {"kind": "page"}, "not a kind"),
        ("a", {"limit": "0"}, "--limit"),
        ("a", {"limit": "many"}, "--limit"),
    ],
)
def test_bad_input_is_one_clear_error(text: str, filters: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        parse_query(text, filters)


def test_words_reach_fts5_as_quoted_strings_only() -> None:
    words = query_words('NEAR(a b) OR "x" title:* -y AND')
    assert words == ["near", "a", "b", "or", "x", "title", "y", "and"]
    assert fts5_match(words) == '"near" "a" "b" "or" "x" "title" "y" "and"'
    assert len(query_words(" ".join(f"w{i}" for i in range(100)))) == 32


def test_tags_are_normalised() -> None:
    assert normalize_tag("  Q3  Review ") == "q3 review"
    assert normalize_tag("energy/fusion:iter") == "energy/fusion:iter"
    with pytest.raises(InvalidInput):
        normalize_tag("   ")


def test_a_report_shows_the_lines_with_the_most_query_words() -> None:
    report = "# Title\nNothing here.\nTokamak plasma is hot.\nA tokamak.\nThe end."
    assert best_lines(report, ["tokamak", "plasma"]) == "Tokamak plasma is hot. … A tokamak."
    assert best_lines("x" * 500, ["y"]).endswith("…")
