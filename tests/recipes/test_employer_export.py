"""The employer profile as PDF and DOCX: the same content as its markdown (status, found
items with their citations, the routing table, the cited evidence), links to the pages
the quotes come from."""

from __future__ import annotations

from pathlib import Path

from deepresearch.export import export_document
from deepresearch.export.fonts import find_fonts
from deepresearch.recipes.employer import EmployerRequest
from deepresearch.recipes.employer.document import employer_document
from deepresearch.recipes.employer.render import _cited
from deepresearch.testing.web import OfflineWeb

from ..export.reading import docx_links, docx_tables, docx_text, flat, pdf_links, pdf_text
from .conftest import COMPANY
from .test_run import run


async def test_the_profile_exports_to_pdf_and_docx(web: OfflineWeb, tmp_path: Path) -> None:
    result, _ = await run(web, tmp_path, EmployerRequest(company=COMPANY))
    cited = set(_cited(result))
    quotes = [flat(item.quote) for item in result.evidence if item.id in cited]
    urls = {item.source_url for item in result.evidence if item.id in cited}
    assert quotes and result.routing_trace
    doc = employer_document(result)

    pdf = export_document(doc, "pdf", fonts=find_fonts())
    text = pdf_text(pdf)
    assert "Employer profile: Google" in text and "Routing" in text
    assert "attempt data quality confidence recommended route next" in text  # the table
    assert all(quote in text for quote in quotes if quote.isascii())
    assert set(pdf_links(pdf)) == urls

    word = export_document(doc, "docx")
    assert all(quote in docx_text(word) for quote in quotes)
    assert {url for _, url in docx_links(word)} == urls
    (routing,) = docx_tables(word)
    assert routing[0][:2] == ["attempt", "data"] and len(routing) == 1 + len(result.routing_trace)
