"""ODT export: the file opens with odfpy's loader, carries the verified quotes in every
script, makes each citation a hyperlink to its source, keeps headings as outline levels
and the sources-considered table as a table; the same report gives the same bytes."""

from __future__ import annotations

import io
import zipfile

from odf import dc, opendocument, teletype

from deepresearch.export import export_report
from deepresearch.models import Report

from ..core.test_render import make_report
from .reading import flat, odt_headings, odt_links, odt_tables, odt_text
from .test_pdf import cited_quotes


def test_the_odt_opens_and_carries_every_cited_quote_in_any_script(bee_report: Report) -> None:
    data = export_report(bee_report, "odt")
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert names[0] == "mimetype"  # first and stored, as OpenDocument requires
    text = odt_text(data)
    quotes = cited_quotes(bee_report)
    assert any("蜜蜂" in quote for quote in quotes)
    for quote in quotes:
        assert quote in text
    document = opendocument.load(io.BytesIO(data))
    (title,) = document.meta.getElementsByType(dc.Title)
    assert teletype.extractText(title) == flat(bee_report.title)
    headings = odt_headings(data)
    assert headings[0] == (1, flat(bee_report.title))
    assert {(2, "Sources"), (2, "Sources considered")} <= set(headings)


def test_citations_link_to_their_sources_and_nothing_else_links(bee_report: Report) -> None:
    links = odt_links(export_report(bee_report, "odt"))
    urls = {ref.number: ref.url for ref in bee_report.sources}
    cited = [(text, url) for text, url in links if text.startswith("[")]
    assert cited and all(url == urls[int(text.strip("[]"))] for text, url in cited)
    assert {url for _, url in links} <= set(urls.values())


def test_the_sources_considered_table_is_a_table(bee_report: Report) -> None:
    (considered,) = odt_tables(export_report(bee_report, "odt"))
    assert considered[0][:3] == ["source", "tier", "signal"]
    assert len(considered) == 1 + len(bee_report.considered)


def test_text_xml_cannot_carry_is_dropped_not_fatal() -> None:
    report = make_report(title="Bell\x07 and \x1b escape")
    assert "Bell and escape" in odt_text(export_report(report, "odt"))
