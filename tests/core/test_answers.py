"""Answer-bearing text and what the evidence still lacks: values of the asked kind, how
much a passage is about the question, and the gaps (a compared thing nobody quoted, no
value of the asked kind, an open chain)."""

from __future__ import annotations

from deepresearch.core.answers import (
    answer_candidates,
    answer_gaps,
    bridges,
    own_page,
    own_pages,
    topicality,
)
from deepresearch.core.questions import analyze_question
from deepresearch.models import Evidence, Verification


def ev(eid: str, source: str, quote: str, *, verified: bool = True) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="q1",
        claim=quote,
        quote=quote,
        source_id=source,
        source_url=f"https://example.org/{source}",
        start=0,
        end=len(quote),
        verification=Verification(status="PASS" if verified else "FAIL", method="exact", score=1.0),
    )


def test_candidates_are_values_of_the_asked_kind_that_the_question_does_not_name() -> None:
    when = analyze_question("When did the Orlen Bridge over the Varmo open after its 1950 design?")
    text = "Designed in 1950 by Anna Berg, the Orlen Bridge opened on 3 May 1962."
    assert [m.text for m in answer_candidates(when, text)] == ["3 May 1962"]
    who = analyze_question("Who designed the Orlen Bridge?")
    assert [m.text for m in answer_candidates(who, text)] == ["Anna Berg"]
    how_many = analyze_question("How many people live in Dunmere?")
    assert [m.text for m in answer_candidates(how_many, "Dunmere has 13,527 people.")] == ["13,527"]


def test_a_place_must_read_as_a_place() -> None:
    where = analyze_question("Where is Marrow House based?")
    assert [m.text for m in answer_candidates(where, "Marrow House is based in Dunmere.")] == [
        "Dunmere"
    ]
    assert answer_candidates(where, "Marrow House was founded by Anna Berg.") == []


def test_a_question_without_a_kind_of_value_has_no_candidates() -> None:
    profile = analyze_question("Are Irena Kovalska and Tomas Berg both novelists?")
    assert answer_candidates(profile, "Irena Kovalska wrote books from 1950.") == []


def test_topicality_counts_the_passage_and_its_page() -> None:
    keys = ["irena kovalska"]
    assert topicality("Irena Kovalska wrote it.", "Irena Kovalska", keys) == 2
    assert topicality("She wrote it in 1962.", "Irena Kovalska", keys) == 1
    assert topicality("Irena Kovalska visited.", "Dunmere", keys) == 1
    assert topicality("The town grew.", "Dunmere", keys) == 0
    assert topicality("The town grew.", "Dunmere", keys, bridges=["dunmere"]) == 1


def test_a_compared_thing_that_no_quote_names_is_a_gap() -> None:
    profile = analyze_question("Are Irena Kovalska and Tomas Berg both novelists?")
    gaps = answer_gaps(profile, [ev("e1", "a", "Irena Kovalska is a novelist.")])
    assert [(g.kind, g.subject) for g in gaps] == [("option", "Tomas Berg")]
    # a quote from his own page counts, even when it says "He"
    both = [ev("e1", "a", "Irena Kovalska is a novelist."), ev("e2", "b", "He is a painter.")]
    assert answer_gaps(profile, both, {"a": "Irena Kovalska", "b": "Tomas Berg"}) == []


def test_no_value_of_the_asked_kind_is_a_gap() -> None:
    profile = analyze_question("When did the Orlen Bridge open?")
    gaps = answer_gaps(profile, [ev("e1", "a", "The Orlen Bridge crosses the river.")])
    assert [g.kind for g in gaps] == ["answer"]
    found = [ev("e1", "a", "The Orlen Bridge opened in 1962.")]
    assert answer_gaps(profile, found) == []
    # unverified quotes do not count
    unverified = ev("e2", "a", "The Orlen Bridge opened in 1962.", verified=False)
    assert [g.kind for g in answer_gaps(profile, [unverified])] == ["answer"]


QUESTION = "Who wrote the novel that is set on the shore of Lake Varmo?"
FIRST = ev("e1", "lake", 'The novel "The Glass Orchard" is set on the shore of Lake Varmo.')


def test_bridges_are_what_quotes_about_the_question_name() -> None:
    profile = analyze_question(QUESTION)
    off_topic = ev("e2", "other", "Tomas Berg painted the harbour.")
    assert bridges(profile, [FIRST, off_topic], {}) == {"glass orchard": {"lake"}}


def test_a_multi_hop_question_needs_its_second_step() -> None:
    profile = analyze_question(QUESTION)
    titles = {"lake": "Lake Varmo", "book": "The Glass Orchard", "other": "Dunmere"}
    # a name on the first step's own page is not the second step
    first_only = [FIRST, ev("e2", "lake", "Tomas Berg fished on Lake Varmo.")]
    assert [g.kind for g in answer_gaps(profile, first_only, titles)] == ["chain"]
    # the bridge's page, but silent on what the question asks of it ("wrote")
    silent = [*first_only, ev("e3", "book", "The Glass Orchard has a cover by Anna Berg.")]
    assert [g.kind for g in answer_gaps(profile, silent, titles)] == ["chain"]
    # the bridge's page, saying who wrote it: the chain is closed
    closed = [*first_only, ev("e4", "book", "Irena Kovalska wrote The Glass Orchard in 1962.")]
    assert answer_gaps(profile, closed, titles) == []


def test_a_page_is_the_own_page_of_the_thing_its_title_is() -> None:
    # the title, less a qualifier in brackets, a site's name or what follows a comma
    assert own_page("Velvet Moths", "velvet moths")
    assert own_page("Velvet Moths (band)", "velvet moths")
    assert own_page("Velvet Moths - Encyclopedia of Folk", "velvet moths")
    assert own_page("Dunmere, Ostrel Highlands", "dunmere")
    assert own_page("Arvo Lindqvist, 2nd Baron Dunmere", "arvo lindqvist")
    # a page that only names the thing is about something else
    assert not own_page("Salt Harbour (Velvet Moths album)", "velvet moths")
    assert not own_page("Greater Velvet Moths", "velvet moths")
    assert not own_page("Velvet", "velvet moths")
    assert not own_page("Velvet Moths", "")


def test_own_pages_are_the_things_whose_page_was_read() -> None:
    titles = ["Lake Varmo (album)", "Arvo Lindqvist", "A history of Dunmere"]
    assert own_pages(["arvo lindqvist", "dunmere", "lake varmo"], titles) == [
        "arvo lindqvist",
        "lake varmo",
    ]
