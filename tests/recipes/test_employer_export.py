"""The employer profile as PDF, DOCX, ODT and its cited pages as a bibliography, through the registry as every front end gets it
(``render_bytes`` with the recipe): the same content as its markdown (status, found items
with their citations, the routing table, the cited evidence), links to the pages the
quotes come from."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser

from deepresearch.export.formats import FORMATS, render_bytes
from deepresearch.recipes.employer import EmployerRequest
from deepresearch.recipes.employer.profile_text import cited_ids
from deepresearch.recipes.registry import get_recipe
from deepresearch.testing.web import OfflineWeb

from ..export.reading import (
    docx_links,
    docx_tables,
    docx_text,
    flat,
    odt_text,
    pdf_links,
    pdf_text,
)
from .conftest import COMPANY
from .test_run import run


async def test_the_profile_exports_to_pdf_and_docx(web: OfflineWeb, tmp_path: Path) -> None:
    result, _ = await run(web, tmp_path, EmployerRequest(company=COMPANY))
    cited = set(cited_ids(result))
    quotes = [flat(item.quote) for item in result.evidence if item.id in cited]
    urls = {item.source_url for item in result.evidence if item.id in cited}
    assert quotes and result.routing_trace
    recipe = get_recipe("employer")
    assert recipe.document(result).title == "Employer profile: Google"

    pdf = render_bytes(recipe, result, "pdf")
    text = pdf_text(pdf)
    assert "Employer profile: Google" in text and "Routing" in text
    assert "attempt data quality confidence recommended route next" in text  # the table
    assert all(quote in text for quote in quotes if quote.isascii())
    assert set(pdf_links(pdf)) == urls

    word = render_bytes(recipe, result, "docx")
    assert all(quote in docx_text(word) for quote in quotes)
    assert {url for _, url in docx_links(word)} == urls
    (routing,) = docx_tables(word)
    assert routing[0][:2] == ["attempt", "data"] and len(routing) == 1 + len(result.routing_trace)

    # the bibliography formats list the pages the cited quotes come from, once each
    library = bibtexparser.parse_string(render_bytes(recipe, result, "bibtex").decode())
    assert not library.failed_blocks
    assert [entry["url"] for entry in library.entries] == list(
        dict.fromkeys(
            item.source_url
            for eid in cited_ids(result)
            for item in result.evidence
            if item.id == eid
        )
    )
    assert {item["URL"] for item in json.loads(render_bytes(recipe, result, "csljson"))} == urls
    assert "Employer profile: Google" in odt_text(render_bytes(recipe, result, "odt"))

    # one document, every format: the markdown carries what the PDF carries, and the
    # HTML the state each routing step left
    markdown = render_bytes(recipe, result, "md").decode()
    assert all(quote in markdown for quote in quotes)
    assert "| attempt | data | quality | confidence | recommended | route | next |" in markdown
    page = render_bytes(recipe, result, "html").decode()
    assert ">state after</th>" in page and "low_data_flag=True" in page
    assert [fmt for fmt in FORMATS if not render_bytes(recipe, result, fmt)] == []
