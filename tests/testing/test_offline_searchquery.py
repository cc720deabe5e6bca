"""Query operators and snippets."""

from __future__ import annotations

from deepresearch.testing.searchquery import make_snippet, parse_query


def test_operators_are_split_into_terms_phrases_and_filters() -> None:
    parsed = parse_query(
        '"grand final" Geelong site:https://www.afl.com.au/x -site:example.org '
        "intitle:premiers -losers filetype:pdf OR"
    )
    assert parsed.terms == ("grand", "final", "geelong", "premiers")
    assert parsed.phrases == (("grand", "final"),)
    assert parsed.sites == ("afl.com.au",)
    assert parsed.excluded_sites == ("example.org",)
    assert parsed.intitle == ("premiers",)
    assert parsed.filetypes == ("pdf",)


def test_odd_queries_never_raise() -> None:
    for query in ['"unterminated phrase', "site:", "-", "intitle:", '""', "a:b:c", "\x00", ""]:
        parse_query(query)
    assert parse_query('"unterminated phrase').phrases == (("unterminated", "phrase"),)
    assert parse_query("x" * 100_000).terms


def test_snippet_is_a_window_around_the_query_terms() -> None:
    text = (
        ("Filler sentence about nothing. " * 40)
        + "The zebra met the okapi at dawn. "
        + ("More filler text here. " * 40)
    )
    snippet = make_snippet(text, ["zebra", "okapi"])
    assert "zebra" in snippet and "okapi" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet) <= 302


def test_snippet_of_short_text_is_the_text_without_heading_marks() -> None:
    assert make_snippet("## Heading\n\nShort   body.", ["body"]) == "Heading Short body."
    long_text = "word " * 200
    assert make_snippet(long_text, ["absent"]).startswith("word word")
