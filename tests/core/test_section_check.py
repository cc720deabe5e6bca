"""A planned section's validation: its layout's shape, citations that resolve to PASS
quotes, and every figure, date and name in a quote it cites; and the fallback to the
section's verified quotes."""

from __future__ import annotations

from typing import Any

from deepresearch.core.section_check import (
    SectionDraft,
    check_section,
    fallback_section,
)
from deepresearch.models import Evidence, Verification

PASS = Verification(status="PASS", method="exact", score=1.0, start=0, end=5)
FAIL = Verification(status="FAIL", method="none", score=0.0)

TOWER = "The Eiffel Tower was completed in 1889 and is 330 metres tall."
BRIDGE = "The Golden Gate Bridge opened in May 1937 after four years of work."
FORGED = "The Tower Bridge in London opened in 1894."


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


LABELS = {
    "E1": ev("ev-1", TOWER),
    "E2": ev("ev-2", BRIDGE),
    "E3": ev("ev-3", FORGED, verified=False),
}


def cell(text: str, *cite: str) -> dict[str, Any]:
    return {"text": text, "cite": list(cite)}


def table(
    *rows: list[dict[str, Any]], columns: tuple[str, ...] = ("Structure", "Opened")
) -> SectionDraft:
    return SectionDraft.model_validate({"columns": list(columns), "rows": list(rows)})


def check(draft: SectionDraft, layout: str = "table") -> list[str]:
    return check_section(draft, heading="H", layout=layout, labels=LABELS).problems  # type: ignore[arg-type]


def test_a_table_whose_cells_cite_their_quotes_passes_with_each_cells_citations() -> None:
    draft = table(
        [cell("Eiffel Tower", "E1"), cell("1889", "E1")],
        [cell("Golden Gate Bridge", "E2"), cell("May 1937", "[e2]")],
    )
    result = check_section(draft, heading="Built", layout="table", labels=LABELS)
    assert result.ok and result.section is not None
    assert result.section.layout == "table" and result.section.table is not None
    rows = result.section.table.rows
    assert [row.cells for row in rows] == [
        ["Eiffel Tower", "1889"],
        ["Golden Gate Bridge", "May 1937"],
    ]
    assert rows[1].cell_citations == [["ev-2"], ["ev-2"]] and rows[1].citations == ["ev-2"]


def test_a_broken_table_is_refused() -> None:
    short = table(
        [cell("Eiffel Tower", "E1")], [cell("Golden Gate Bridge", "E2"), cell("1937", "E2")]
    )
    assert check(short) == ["row 1 has 1 cells for 2 columns"]
    assert check(table(columns=("Only",))) == [
        "a table needs at least two named columns",
        "a table needs at least one row",
    ]
    comparison = table([cell("Eiffel Tower", "E1"), cell("1889", "E1")])
    assert "a comparison needs a column per thing compared, besides the first" in check(
        comparison, "comparison"
    )
    undated = table(
        [cell("Eiffel Tower", "E1"), cell("completed", "E1")], columns=("Date", "Event")
    )
    assert check(undated, "timeline") == ["row 1 of a timeline has no date in its first column"]


def test_a_cell_or_sentence_citing_a_fail_quote_or_an_unknown_label_is_refused() -> None:
    failed = table([cell("Tower Bridge", "E3"), cell("1894", "E3")])
    problems = check(failed)
    assert "cell 1.1 cites E3, a quote that failed verification" in problems
    assert "row 1 cites no verified quote" in problems
    prose = SectionDraft.model_validate(
        {"paragraphs": [[cell("The tower was finished in 1889.", "E9")]]}
    )
    assert check(prose, "prose") == [
        "sentence 1.1 cites E9, which is not evidence",
        "sentence 1.1 cites no verified quote",
    ]


def test_an_invented_number_date_or_name_is_refused_even_beside_true_ones() -> None:
    number = table([cell("Eiffel Tower", "E1"), cell("1899", "E1")])
    assert check(number) == ["cell 1.2 states 1899, which no quote it cites contains"]
    name = SectionDraft.model_validate(
        {
            "items": [
                cell("Gustave Eiffel completed the tower in 1889.", "E1"),
                cell("It is 330 metres tall.", "E1"),
            ]
        }
    )
    assert check(name, "list") == ["item 1 states Gustave Eiffel, which no quote it cites contains"]
    month = SectionDraft.model_validate(
        {"paragraphs": [[cell("The Golden Gate Bridge opened in June 1937.", "E2")]]}
    )
    assert check(month, "prose") == ["sentence 1.1 states June, which no quote it cites contains"]
    # a figure from another quote does not count: it must be in a quote the part cites
    elsewhere = table([cell("Golden Gate Bridge", "E2"), cell("1889", "E2")])
    assert check(elsewhere) == ["cell 1.2 states 1889, which no quote it cites contains"]


def test_uncited_statements_are_refused_but_empty_cells_need_no_citation() -> None:
    bare = table([cell("Eiffel Tower", "E1"), cell("1889")])
    assert check(bare) == ["cell 1.2 cites no verified quote"]
    assert check(table([cell("Eiffel Tower", "E1"), cell("—")])) == []


def test_a_list_needs_two_items() -> None:
    one = SectionDraft.model_validate({"items": [cell("The tower was completed in 1889.", "E1")]})
    assert check(one, "list") == ["a list needs at least two items"]


def test_the_fallback_is_the_sections_verified_quotes_verbatim() -> None:
    by_id = {item.id: item for item in LABELS.values()}
    section = fallback_section("Built", ["ev-3", "ev-2", "ev-1", "ev-2", "ev-404"], by_id)
    assert section is not None and section.layout == "prose" and section.table is None
    texts = [(p.sentences[0].text, p.sentences[0].citations) for p in section.paragraphs]
    assert texts == [(f"“{BRIDGE}”", ["ev-2"]), (f"“{TOWER}”", ["ev-1"])]
    assert fallback_section("Built", ["ev-3"], by_id) is None
