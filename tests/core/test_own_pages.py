"""The page of a thing the question names is read whenever it is a candidate (issue 17):
a search for several things, or a judge rating snippets, may rank pages that only name it
(its albums, its members) above it; ``core.ranking.read_own_pages`` reads it too."""

from __future__ import annotations

from datetime import UTC, datetime

from deepresearch.core.ranking import rank_and_select, read_own_pages
from deepresearch.core.threshold import Selection
from deepresearch.domain_rules import load_domain_rules
from deepresearch.models import SearchHit

NOW = datetime(2025, 6, 1, tzinfo=UTC)
QUESTION = "Which came first, the forming of Velvet Moths or the birth of Arvo Lindqvist?"
TITLES = [
    "Salt Harbour (Velvet Moths album)",
    "Arvo Lindqvist",
    "Velvet Moths live in Dunmere",
    "Moths of the Ostrel Highlands",
    "Dunmere folk festival",
    "Velvet Moths (band)",
    "Velvet Moths (band) discography",
]
HITS = [
    SearchHit(
        url=f"https://wiki.example/{i}",
        title=title,
        snippet=f"{title}: a page of the folk music wiki.",
        provider="searxng",
        rank=i,
    )
    for i, title in enumerate(TITLES)
]


def selection(limit: int = 3) -> Selection:
    return rank_and_select(HITS, QUESTION, load_domain_rules(), now=NOW, limit=limit)


def titles_read(chosen: Selection) -> list[str]:
    return sorted(s.title for s in chosen.read)


def test_the_own_page_of_a_named_thing_is_read_too() -> None:
    before = selection()
    assert "Velvet Moths (band)" not in titles_read(before)
    after = read_own_pages(before, ["velvet moths", "arvo lindqvist"])
    # the band's page is read in addition; nothing read before is dropped for it
    assert titles_read(after) == sorted([*titles_read(before), "Velvet Moths (band)"])
    page = next(s for s in after.decisions if s.title == "Velvet Moths (band)")
    assert page.reason.startswith("read: the page of 'Velvet Moths (band)'")
    # a page that only names the band is not its page
    assert "Velvet Moths (band) discography" not in titles_read(after)


def test_nothing_changes_when_the_page_is_read_or_not_a_candidate() -> None:
    before = selection()
    assert "Arvo Lindqvist" in titles_read(before)
    assert read_own_pages(before, ["arvo lindqvist"]) == before
    assert read_own_pages(before, ["ostrel highlands", "lake varmo", ""]) == before
