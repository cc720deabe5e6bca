"""The audit reads a planned table's rows like sentences: each row, with what its cells
cite, gets a verdict; strict removes an unsupported row (and a source only it cited),
mark flags it in every format. A planned table's rows cite for themselves: they number
sources even when no sentence cites the same evidence."""

from __future__ import annotations

from deepresearch.core.assemble import number_sources, table_rows_citing
from deepresearch.core.audit import apply_audit, checked_rows
from deepresearch.export.report_document import report_document
from deepresearch.export.report_render import to_html, to_markdown
from deepresearch.models import Report, Source, Table, TableRow
from deepresearch.models.document import Table as DocTable

from .test_render import ev, make_report, ref


def _planned() -> tuple[Report, dict[str, Source]]:
    evidence = [
        ev("e1", "sb", "Bees pollinate\n  many crops."),
        ev("e2", "sa", "Ants farm aphids."),
        ev("e3", "sb", "Bees dance to share directions."),
        ev("e5", "sd", "Termites build mounds 9 metres tall."),
    ]
    table = Table(
        columns=["Insect", "Does"],
        rows=[
            TableRow(cells=["Bees", "dance"], citations=["e3"], cell_citations=[["e3"], ["e3"]]),
            TableRow(
                cells=["Termites", "9 metres"], citations=["e5"], cell_citations=[["e5"], ["e5"]]
            ),
            TableRow(cells=["Ants", "—"], citations=["e2"], cell_citations=[["e2"], []]),
        ],
    )
    report = make_report(evidence=evidence)
    body = report.sections[0].model_copy(update={"table": table, "layout": "table"})
    report = report.model_copy(
        update={"sections": [body], "sources": [*report.sources, ref("sd", 3, "Termite facts")]}
    )
    sources = {
        sid: Source(
            id=sid, url=f"https://{sid}.example/", domain=f"{sid}.example", title=sid, fetched=True
        )
        for sid in ("sa", "sb", "sd")
    }
    return report, sources


def test_each_row_is_one_statement_citing_what_its_cells_cite() -> None:
    report, sources = _planned()
    rows = checked_rows(report)
    assert rows[(0, 0)].text == "Insect: Bees; Does: dance" and rows[(0, 0)].citations == ["e3"]
    assert rows[(0, 2)].text == "Insect: Ants"  # an empty cell says nothing
    # the rows' citations number sources like sentences do
    by_id = {e.id: e for e in report.evidence}
    refs = number_sources(table_rows_citing(report.sections), by_id, sources)
    assert [r.id for r in refs] == ["sb", "sd", "sa"]


def test_strict_removes_an_unsupported_row_and_the_source_only_it_cited() -> None:
    report, sources = _planned()
    audited = apply_audit(
        report,
        {},
        rows={(0, 1): ("unsupported", "9 metres is not said"), (0, 0): ("supported", None)},
        policy="strict",
        method="judge",
        sources=sources,
    )
    table = audited.sections[0].table
    assert table is not None and [row.cells[0] for row in table.rows] == ["Bees", "Ants"]
    assert "sd" not in {ref.id for ref in audited.sources}
    assert "e5" not in {item.id for item in audited.evidence}
    assert audited.audit is not None and audited.audit.removed == 1
    assert audited.audit.unsupported == 1 and audited.audit.supported == 1


def test_mark_keeps_the_row_with_a_visible_flag_in_every_format() -> None:
    report, sources = _planned()
    audited = apply_audit(
        report,
        {},
        rows={(0, 1): ("unsupported", "9 metres is not said")},
        policy="mark",
        method="judge",
        sources=sources,
    )
    table = audited.sections[0].table
    assert table is not None and table.rows[1].audit == "unsupported"
    assert "sd" in {ref.id for ref in audited.sources}  # a row cites its source by itself
    row = next(line for line in to_markdown(audited).splitlines() if line.startswith("| Termites"))
    assert row.endswith("| [3] ⚠ \\[not supported: 9 metres is not said\\] |")
    assert '<mark class="audit">⚠ [not supported: 9 metres is not said]</mark>' in to_html(audited)
    drawn = next(b for b in report_document(audited).blocks if isinstance(b, DocTable))
    assert "not supported" in drawn.merged_rows()[1][-1].text
