"""Key facts: dates, numbers and asked-for names from the cited quotes, each with the
quote's own words around it and the evidence it comes from."""

from __future__ import annotations

from deepresearch.core.keyfacts import HEADING, MAX_FACTS, key_facts
from deepresearch.core.questions import analyze_question
from deepresearch.models import Evidence, Verification

PASS = Verification(status="PASS", method="exact", score=1.0, start=0, end=5)
FAIL = Verification(status="FAIL", method="none", score=0.0)


def ev(eid: str, quote: str, *, verified: bool = True) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="q1",
        claim=quote,
        quote=quote,
        source_id=f"s-{eid}",
        source_url=f"https://{eid}.example/",
        start=0,
        end=len(quote),
        verification=PASS if verified else FAIL,
    )


def rows(section: object) -> list[tuple[list[str], list[str]]]:
    table = getattr(section, "table", None)
    assert table is not None
    return [(row.cells, row.citations) for row in table.rows]


def test_dates_and_numbers_with_their_words_and_source() -> None:
    quote = (
        "The tower was completed in March 1889 for the World's Fair and stood 324 metres "
        "tall, the tallest structure in the world for 41 years."
    )
    section = key_facts(analyze_question("How was the Eiffel Tower built?"), [ev("e1", quote)])
    assert section is not None and section.heading == HEADING and section.kind == "key_facts"
    found = rows(section)
    facts = [cells[0] for cells, _ in found]
    assert "March 1889" in facts and any(f.startswith("324") for f in facts)
    assert "41" in facts
    for cells, citations in found:
        assert citations == ["e1"]
        # the words around the fact are the quote's own
        assert cells[2].strip("…") in quote and cells[0] in cells[2]


def test_small_numbers_and_names_of_an_explanatory_question_are_not_facts() -> None:
    quote = "Python 3 made print a function, and Guido van Rossum announced it at PyCon."
    assert (
        key_facts(analyze_question("How does printing work in Python?"), [ev("e1", quote)]) is None
    )


def test_a_who_question_gets_the_people_named() -> None:
    quote = "The bridge was designed by Joseph Strauss, who led the project from 1921."
    section = key_facts(analyze_question("Who designed the Golden Gate Bridge?"), [ev("e1", quote)])
    assert section is not None
    kinds = {cells[0]: cells[1] for cells, _ in rows(section)}
    assert kinds.get("Joseph Strauss") == "person"
    assert "1921" in kinds


def test_unverified_quotes_give_no_facts_and_facts_are_not_repeated() -> None:
    same = "It opened in 1937 to traffic."
    section = key_facts(
        analyze_question("When did it open?"),
        [ev("bad", "It opened in 1936 to traffic.", verified=False), ev("a", same), ev("b", same)],
    )
    assert section is not None
    assert rows(section) == [(["1937", "date", "It opened in 1937 to traffic."], ["a"])]


def test_at_most_max_facts_rows() -> None:
    items = [ev(f"e{i}", f"In {1900 + i} the count was {100 + i} people.") for i in range(20)]
    section = key_facts(analyze_question("How did the town grow?"), items)
    assert section is not None and len(rows(section)) == MAX_FACTS
