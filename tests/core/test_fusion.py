"""Reciprocal rank fusion: the formula, what counts as the same page, the providers each
fused hit names, and a deterministic order."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from deepresearch.core.fusion import DEFAULT_K, found_by, fuse, provider_counts
from deepresearch.models import SearchHit


def hits(provider: str, *urls: str, **extra: object) -> list[SearchHit]:
    return [
        SearchHit(url=url, title=url[-1], provider=provider, query="q", rank=i, **extra)  # type: ignore[arg-type]
        for i, url in enumerate(urls)
    ]


def test_a_page_two_providers_found_beats_a_page_one_put_first() -> None:
    web = hits("searxng", "https://w.example/a", "https://both.example/x")
    local = hits("local", "file:///docs/b.md", "https://both.example/x")
    fused = fuse([web, local])
    assert fused[0].url == "https://both.example/x"
    assert fused[0].providers == ("local", "searxng")
    # 2/(60+2) against 1/(60+1)
    assert [hit.url for hit in fused[1:]] == ["https://w.example/a", "file:///docs/b.md"]


def test_scores_follow_the_formula() -> None:
    web = hits("searxng", "https://a.example/1", "https://a.example/2", "https://a.example/3")
    local = hits("local", "https://a.example/3")
    fused = fuse([web, local], k=DEFAULT_K)
    raw = {
        "https://a.example/3": 1 / 63 + 1 / 61,
        "https://a.example/1": 1 / 61,
        "https://a.example/2": 1 / 62,
    }
    top = max(raw.values())
    assert [(hit.url, hit.score) for hit in fused] == [
        (url, round(score / top, 6)) for url, score in sorted(raw.items(), key=lambda i: -i[1])
    ]
    assert [hit.rank for hit in fused] == [0, 1, 2]


def test_k_decides_how_much_the_head_of_a_list_weighs() -> None:
    # a page first in one list against a page third in two lists
    one = hits("a", "https://first.example/", "https://x.example/", "https://shared.example/")
    two = hits("b", "https://y.example/", "https://z.example/", "https://shared.example/")
    assert fuse([one, two], k=60)[0].url == "https://shared.example/"  # 2/63 > 1/61
    assert fuse([one, two], k=0.5)[0].url == "https://first.example/"  # 1/1.5 > 2/3.5


def test_the_same_page_is_matched_by_normalized_url() -> None:
    web = hits("searxng", "HTTPS://Docs.Example:443/page?utm_source=x#top")
    other = hits("brave", "https://docs.example/page")
    (fused,) = fuse([web, other])
    assert fused.url == "https://docs.example/page"
    assert fused.providers == ("brave", "searxng")


def test_a_repeat_within_one_list_counts_once() -> None:
    web = hits("searxng", "https://a.example/", "https://a.example/", "https://b.example/")
    other = hits("brave", "https://b.example/")
    fused = fuse([web, other])
    assert [hit.url for hit in fused] == ["https://b.example/", "https://a.example/"]


def test_missing_fields_come_from_another_sighting() -> None:
    when = datetime(2024, 1, 2, tzinfo=UTC)
    bare = SearchHit(url="https://a.example/", provider="searxng", rank=0)
    rich = SearchHit(
        url="https://a.example/",
        title="Title",
        snippet="Snippet",
        provider="tavily",
        rank=4,
        published=when,
        content="full text",
    )
    (fused,) = fuse([[bare], [rich]])
    assert (fused.provider, fused.title, fused.snippet, fused.published, fused.content) == (
        "searxng",
        "Title",
        "Snippet",
        when,
        "full text",
    )


def test_hits_without_a_url_are_dropped_and_limit_cuts() -> None:
    web = [
        SearchHit(url="", snippet="text only", provider="searxng"),
        *hits("searxng", "https://a.example/1", "https://a.example/2"),
    ]
    assert [hit.url for hit in fuse([web], limit=1)] == ["https://a.example/1"]
    assert fuse([web], limit=0) == []
    assert fuse([]) == [] and fuse([[], []]) == []


def test_the_order_does_not_depend_on_arrival_order_within_ties() -> None:
    a = hits("a", "https://1.example/", "https://2.example/")
    b = hits("b", "https://3.example/", "https://4.example/")
    expected = [hit.url for hit in fuse([a, b])]
    # equal scores: best rank first, then the providers in the order the user named them
    assert expected == [
        "https://1.example/",
        "https://3.example/",
        "https://2.example/",
        "https://4.example/",
    ]
    for first, second in itertools.permutations([a, b]):
        shuffled = fuse([first, second])
        assert {hit.url for hit in shuffled} == set(expected)


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be > 0"):
        fuse([hits("a", "https://a.example/")], k=0)


def test_found_by_and_provider_counts() -> None:
    single = SearchHit(url="https://a.example/", provider="searxng")
    both = SearchHit(url="https://b.example/", provider="local", providers=("local", "searxng"))
    assert found_by(single) == ("searxng",)
    assert found_by(both) == ("local", "searxng")
    assert provider_counts([single, both]) == {"local": 1, "searxng": 2}
    assert provider_counts([]) == {}
