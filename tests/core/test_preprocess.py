"""Search preprocessing: normalize, dedupe, sort and truncate, deterministically."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from deepresearch.core.preprocess import PreprocessResult, normalize_url, preprocess
from deepresearch.models import SearchHit


def hit(url: str, rank: int = 0, **fields: object) -> SearchHit:
    return SearchHit(url=url, rank=rank, provider=str(fields.pop("provider", "p")), **fields)


def counts(result: PreprocessResult) -> tuple[int, int, int, int, int]:
    return (result.received, result.invalid, result.duplicates, result.truncated, result.kept)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  HTTPS://Example.COM/Path?q=1#frag ", "https://example.com/Path?q=1"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("http://example.com", "http://example.com/"),
        (
            "https://ex.com/a?utm_source=x&id=7&UTM_Medium=y&fbclid=z&gclid=w&b=&id=8",
            "https://ex.com/a?id=7&b=&id=8",
        ),
        ("https://ex.com/a?utm_source=x", "https://ex.com/a"),
        ("https://ex.com/a?q=a%20b&r=c+d", "https://ex.com/a?q=a%20b&r=c+d"),
        ("https://ex.com/a/?", "https://ex.com/a/"),
        ("https://User:Pw@EX.com/", "https://User:Pw@ex.com/"),
        ("http://[2001:DB8::1]:80/x", "http://[2001:db8::1]/x"),
        ("https://ex.com/Case/Sensitive/", "https://ex.com/Case/Sensitive/"),
        ("file:///home/me/Notes.md", "file:///home/me/Notes.md"),
        ("http://ex.com:notaport/", "http://ex.com:notaport/"),
        ("", ""),
    ],
)
def test_normalize_url(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


def test_normalize_url_is_idempotent() -> None:
    once = normalize_url("HTTP://Ex.com:80?utm_id=1&a=2#top")
    assert normalize_url(once) == once == "http://ex.com/?a=2"


def test_whitespace_is_collapsed_and_urls_normalized() -> None:
    result = preprocess(
        [hit(" https://Ex.com/a#x ", title="  A \n title ", snippet="one\t two  ")], limit=5
    )
    (only,) = result.hits
    assert (only.url, only.title, only.snippet) == ("https://ex.com/a", "A title", "one two")


def test_duplicates_keep_the_best_ranked_then_highest_score() -> None:
    hits = [
        hit("https://ex.com/a?utm_source=feed", rank=3, title="late", provider="p1"),
        hit("https://EX.com/a", rank=1, title="low score", score=0.2, provider="p2"),
        hit("https://ex.com/a#section", rank=1, title="high score", score=0.9, provider="p3"),
        hit("https://ex.com/a", rank=1, title="no score", provider="p4"),
    ]
    result = preprocess(hits, limit=10)
    assert [h.title for h in result.hits] == ["high score"]
    assert counts(result) == (4, 0, 3, 0, 1)


def test_kept_duplicate_borrows_content_and_date() -> None:
    when = datetime(2024, 1, 2, tzinfo=UTC)
    hits = [
        hit("https://ex.com/a", rank=0, provider="searxng", title="best"),
        hit("https://ex.com/a", rank=2, provider="tavily", content="full text", published=when),
    ]
    (kept,) = preprocess(hits, limit=5).hits
    assert (kept.provider, kept.title, kept.content, kept.published) == (
        "searxng",
        "best",
        "full text",
        when,
    )


def test_hits_without_url_dedupe_by_text_fingerprint() -> None:
    hits = [
        hit("", rank=2, snippet="Same  text here"),
        hit("", rank=1, snippet="same text HERE"),
        hit("", rank=0, snippet="different"),
        hit("", rank=0, content="only content"),
        hit("", rank=1, content="only   content"),
    ]
    result = preprocess(hits, limit=10)
    assert [(h.rank, h.snippet or h.content) for h in result.hits] == [
        (0, "only content"),  # same rank, URL and title: the empty snippet sorts first
        (0, "different"),
        (1, "same text HERE"),
    ]
    assert counts(result) == (5, 0, 2, 0, 3)


def test_hits_with_neither_url_nor_text_are_invalid() -> None:
    hits = [hit("", title="title only"), hit("   ", snippet="   "), hit("https://ex.com/")]
    result = preprocess(hits, limit=10)
    assert [h.url for h in result.hits] == ["https://ex.com/"]
    assert counts(result) == (3, 2, 0, 0, 1)


def test_sort_by_rank_then_url_then_title_interleaves_lists() -> None:
    hits = [
        hit("https://b.example/1", rank=0, query="q1"),
        hit("https://b.example/2", rank=1, query="q1"),
        hit("https://a.example/1", rank=0, query="q2"),
        hit("https://a.example/2", rank=1, query="q2"),
        hit("", rank=1, title="Zed", snippet="z"),
        hit("", rank=1, title="Alpha", snippet="a"),
    ]
    result = preprocess(hits, limit=10)
    assert [(h.rank, h.url or h.title) for h in result.hits] == [
        (0, "https://a.example/1"),
        (0, "https://b.example/1"),
        (1, "Alpha"),
        (1, "Zed"),
        (1, "https://a.example/2"),
        (1, "https://b.example/2"),
    ]


def test_truncates_to_limit() -> None:
    hits = [hit(f"https://ex.com/{i}", rank=i) for i in range(6)] + [hit("https://ex.com/0")]
    result = preprocess(hits, limit=3)
    assert [h.url for h in result.hits] == [f"https://ex.com/{i}" for i in range(3)]
    assert counts(result) == (7, 0, 1, 3, 3)
    assert preprocess(hits, limit=0).hits == []


def test_counts_always_add_up() -> None:
    hits = [hit(""), hit("https://ex.com/"), hit("https://ex.com/#x"), hit("https://o.com/")]
    result = preprocess(hits, limit=1)
    assert result.invalid + result.duplicates + result.truncated + result.kept == result.received


def test_empty_input() -> None:
    assert counts(preprocess([], limit=5)) == (0, 0, 0, 0, 0)


def test_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="limit"):
        preprocess([], limit=-1)


def test_same_result_for_any_input_order() -> None:
    hits = [
        hit("https://ex.com/a", rank=0, provider="p1", score=0.5, title="A1"),
        hit("https://ex.com/a", rank=0, provider="p2", score=0.5, title="A2"),
        hit("https://ex.com/b", rank=1, provider="p1"),
        hit("", rank=0, snippet="text", provider="p1"),
        hit("", rank=0, snippet="TEXT", provider="p2"),
    ]
    results = {
        tuple(preprocess(list(order), limit=3).hits) for order in itertools.permutations(hits)
    }
    assert len(results) == 1


def test_input_is_not_modified() -> None:
    original = hit(" HTTPS://Ex.com/a ", title=" t ")
    preprocess([original], limit=1)
    assert original.url == " HTTPS://Ex.com/a " and original.title == " t "


def test_a_page_from_two_providers_keeps_both_names() -> None:
    web = SearchHit(url="https://a.example/x", provider="searxng", query="q1", rank=1)
    fused = SearchHit(
        url="https://a.example/x#top", provider="local", providers=("brave", "local"), rank=0
    )
    alone = SearchHit(url="https://b.example/", provider="searxng", rank=0)
    for order in ([web, fused, alone], [alone, fused, web]):
        result = preprocess(order, limit=5)
        by_url = {hit.url: hit for hit in result.hits}
        assert by_url["https://a.example/x"].providers == ("brave", "local", "searxng")
        assert by_url["https://b.example/"].providers == ()
