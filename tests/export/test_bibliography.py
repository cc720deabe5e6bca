"""A report's cited sources as BibTeX, RIS and CSL-JSON, read back with the readers
reference managers use: bibtexparser, rispy, and citeproc-py formatting the CSL-JSON in
a CSL style. Every entry carries the source's title, site, address, date and the
identifiers its address names; hostile titles cannot break an entry."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import bibtexparser
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON

from deepresearch.export import export_report
from deepresearch.models import Report

from ..core.test_render import make_report

HOSTILE = 'Bees and 50% of "crops" & $x_1$ #2 ~ \\end @misc{x,\n ER  - trap } {'
PUBLISHED = datetime(2023, 5, 6, 7, 8, tzinfo=UTC)


def report() -> Report:
    base = make_report()
    first, second = base.sources
    sources = [
        first.model_copy(
            update={"url": "https://doi.org/10.1038/nature12373", "published": PUBLISHED}
        ),
        second.model_copy(update={"url": "https://arxiv.org/abs/1706.03762v7", "title": HOSTILE}),
    ]
    evidence = [
        item.model_copy(update={"source_url": sources[0 if item.source_id == "sb" else 1].url})
        for item in base.evidence
    ]
    return base.model_copy(update={"sources": sources, "evidence": evidence})


def flat(text: str) -> str:
    return " ".join(text.split())


def test_bibtex_parses_with_every_field_and_the_hostile_title_intact() -> None:
    text = export_report(report(), "bibtex").decode()
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert not library.failed_blocks
    first, second = library.entries
    assert (first.key, second.key) == ("ref1", "ref2")
    assert first.entry_type == second.entry_type == "misc"
    assert first["title"] == "Bee facts"
    assert first["url"] == "https://doi.org/10.1038/nature12373"
    assert first["doi"] == "10.1038/nature12373"
    assert (first["year"], first["date"]) == ("2023", "2023-05-06")
    assert first["urldate"] == "2025-01-02"  # the report's date: when the page was read
    assert first["howpublished"] == "sb.example"
    # the reader's LaTeX decoder knows no \\textbraceleft: the braces are checked as written
    assert flat(second["title"]) == flat(HOSTILE.replace("{", "").replace("}", ""))
    assert "\\textbraceleft{}x," in text and "trap \\textbraceright{} \\textbraceleft{}}" in text
    assert (second["eprint"], second["archiveprefix"]) == ("1706.03762v7", "arXiv")
    assert "year" not in second.fields_dict  # no date known: none invented


def test_ris_parses_into_one_record_a_source() -> None:
    text = export_report(report(), "ris").decode()
    first, second = rispy.loads(text)
    assert first["type_of_reference"] == "ELEC"
    assert first["id"] == "ref1"
    assert first["title"] == "Bee facts"
    assert first["secondary_title"] == "sb.example"
    assert first["urls"] == ["https://doi.org/10.1038/nature12373"]
    assert first["doi"] == "10.1038/nature12373"
    assert (first["year"], first["date"]) == ("2023", "2023/05/06")
    assert first["access_date"] == "2025/01/02"
    assert second["title"] == flat(HOSTILE)  # one line: its line break cannot end the record
    assert "arXiv:1706.03762v7" in second["notes"]


def test_a_pubmed_source_carries_its_pmid() -> None:
    base = report()
    pubmed = base.sources[0].model_copy(update={"url": "https://pubmed.ncbi.nlm.nih.gov/31452104/"})
    changed = base.model_copy(update={"sources": [pubmed, base.sources[1]]})
    (record, _) = rispy.loads(export_report(changed, "ris").decode())
    assert (record["accession_number"], record["name_of_database"]) == ("31452104", "PubMed")
    (item, _) = json.loads(export_report(changed, "csljson"))
    assert item["PMID"] == "31452104"
    bib = bibtexparser.parse_string(export_report(changed, "bibtex").decode())
    assert bib.entries[0]["pmid"] == "31452104"


def test_csl_json_is_formatted_by_a_citation_processor() -> None:
    items = json.loads(export_report(report(), "csljson"))
    assert [item["id"] for item in items] == ["ref1", "ref2"]
    assert items[0]["type"] == "webpage" and items[0]["DOI"] == "10.1038/nature12373"
    assert items[0]["issued"] == {"date-parts": [[2023, 5, 6]]}
    assert items[1]["type"] == "article" and items[1]["number"] == "arXiv:1706.03762v7"
    source = CiteProcJSON(items)
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, source, formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    rendered = [str(entry) for entry in bibliography.bibliography()]
    assert len(rendered) == 2
    assert any("Bee facts" in entry and "2023" in entry for entry in rendered)
    assert any("Bees and 50% of" in entry for entry in rendered)


def test_a_report_that_cites_nothing_gives_empty_valid_bibliographies() -> None:
    empty = make_report(sources=[])
    assert bibtexparser.parse_string(export_report(empty, "bibtex").decode()).entries == []
    assert rispy.loads(export_report(empty, "ris").decode()) == []
    assert json.loads(export_report(empty, "csljson")) == []
