"""Charts from verified numbers (issue 26, item 2): the points a table or timeline
section's verified quotes state, and when they are worth a chart."""

from __future__ import annotations

from deepresearch.core.charts import MIN_POINTS, quantities, section_chart
from deepresearch.models import Evidence, Paragraph, Section, Sentence, Table, TableRow
from deepresearch.models.evidence import Verification

YEARS = {
    "e1": "In 2019 Acme revenue was $1.2 billion, its first full year.",
    "e2": "In 2020 Acme revenue rose to $1.5 billion.",
    "e3": "In 2021 Acme revenue reached $2.1 billion.",
    "e4": "In 2022 Acme hired 1,200 engineers.",
}


def _evidence(
    quotes: dict[str, str], *, failed: frozenset[str] = frozenset()
) -> dict[str, Evidence]:
    return {
        eid: Evidence(
            id=eid,
            sub_question_id="q1",
            claim=quote,
            quote=quote,
            source_id="s1",
            source_url="https://example.org/acme",
            start=0,
            end=len(quote),
            verification=Verification(
                status="FAIL" if eid in failed else "PASS", method="exact", score=1.0
            ),
        )
        for eid, quote in quotes.items()
    }


def _timeline(rows: list[tuple[str, str, str]], layout: str = "timeline") -> Section:
    table = Table(
        columns=["Date", "Event"],
        rows=[TableRow(cells=[date, event], citations=[eid]) for date, event, eid in rows],
    )
    return Section(heading="Revenue", layout=layout, table=table)  # type: ignore[arg-type]


def test_quantities_read_amounts_percentages_and_counts_not_years() -> None:
    found = quantities("In 2019 revenue was $1.2 billion, up 12% with 1,500 employees.")
    assert [(q.value, q.unit, q.text) for q in found] == [
        (1.2, "$ billion", "$1.2 billion"),
        (12.0, "%", "12%"),
        (1500.0, "employees", "1,500 employees"),
    ]
    assert [q.unit for q in quantities("It grew 15 percent, then 3 per cent.")] == ["%", "%"]
    assert quantities("Founded in 1998.") == []
    assert quantities("The A380 and Python v3") == []  # parts of a name are not numbers


def test_a_timeline_of_verified_yearly_amounts_is_charted_each_point_with_its_quote() -> None:
    evidence = _evidence(YEARS)
    section = _timeline(
        [("2021", "revenue reached", "e3"), ("2019", "revenue", "e1"), ("2020", "rose", "e2")]
    )
    chart = section_chart(section, evidence)
    assert chart is not None
    assert chart.unit == "$ billion"
    assert [(p.label, p.value, p.evidence_id) for p in chart.points] == [
        ("2019", 1.2, "e1"),
        ("2020", 1.5, "e2"),
        ("2021", 2.1, "e3"),
    ]


def test_numbers_only_a_model_wrote_are_never_points() -> None:
    """The cells claim figures the quotes do not hold: the points are the quotes' numbers,
    and a row whose quote states no number gives none."""
    evidence = _evidence(
        {
            "e1": "Acme was founded in 2019 by two engineers.",
            "e2": "In 2020 Acme opened its first factory.",
            "e3": "In 2021 Acme moved to Ohio.",
        }
    )
    section = _timeline(
        [
            ("2019", "revenue was $1.2 billion", "e1"),
            ("2020", "revenue was $1.5 billion", "e2"),
            ("2021", "revenue was $2.1 billion", "e3"),
        ]
    )
    assert section_chart(section, evidence) is None


def test_prose_sections_failed_quotes_and_mixed_units_get_no_chart() -> None:
    rows = [("2019", "revenue", "e1"), ("2020", "rose", "e2"), ("2021", "reached", "e3")]
    evidence = _evidence(YEARS)
    prose = Section(
        heading="Revenue",
        paragraphs=[Paragraph(sentences=[Sentence(text=YEARS["e1"], citations=["e1"])])],
        table=_timeline(rows).table,
    )
    assert section_chart(prose, evidence) is None  # a key-facts style table: not charted
    failed = _evidence(YEARS, failed=frozenset({"e3"}))
    assert section_chart(_timeline(rows), failed) is None  # only two verified points
    mixed = _timeline([*rows[:2], ("2022", "hired", "e4")])
    assert section_chart(mixed, evidence) is None  # two amounts and a head count
    assert MIN_POINTS == 3


def test_a_table_labels_its_points_by_the_first_cell_the_quote_holds() -> None:
    evidence = _evidence(
        {
            "e1": "Norway gets 98% of its electricity from renewables.",
            "e2": "Iceland gets 100% of its electricity from renewables.",
            "e3": "Brazil gets 83% of its electricity from renewables.",
        }
    )
    section = _timeline(
        [("Norway", "98%", "e1"), ("Iceland", "100%", "e2"), ("Brazil", "83%", "e3")], "table"
    )
    chart = section_chart(section, evidence)
    assert chart is not None and chart.unit == "%"
    assert [(p.label, p.value) for p in chart.points] == [
        ("Norway", 98.0),
        ("Iceland", 100.0),
        ("Brazil", 83.0),
    ]
