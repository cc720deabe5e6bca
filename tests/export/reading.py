"""Opening exported reports the way a reader's software does: pypdf for PDF (text and
link annotations), python-docx for DOCX (paragraphs, tables, hyperlink relationships),
odfpy's loader for ODT (paragraphs, headings, tables, links)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import docx
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml.ns import qn
from odf import opendocument, teletype, text
from odf import table as odf_table
from pypdf import PdfReader


def _data(source: bytes | Path) -> bytes:
    return source.read_bytes() if isinstance(source, Path) else source


def flat(text: str) -> str:
    return " ".join(text.split())


def pdf_text(source: bytes | Path) -> str:
    """All pages' text, whitespace collapsed (line wrapping is layout, not content)."""
    reader = PdfReader(io.BytesIO(_data(source)))
    return flat(" ".join(page.extract_text() for page in reader.pages))


def pdf_links(source: bytes | Path) -> list[str]:
    """Every link annotation's URI, page by page."""
    reader = PdfReader(io.BytesIO(_data(source)))
    out = []
    for page in reader.pages:
        for annot in page.get("/Annots") or []:
            action = annot.get_object().get("/A") or {}
            if "/URI" in action:
                out.append(str(action["/URI"]))
    return out


def docx_text(source: bytes | Path) -> str:
    document = docx.Document(io.BytesIO(_data(source)))
    parts = [p.text for p in document.paragraphs]
    for table in document.tables:
        parts += [cell.text for row in table.rows for cell in row.cells]
    return flat(" ".join(parts))


def docx_links(source: bytes | Path) -> list[tuple[str, str]]:
    """Every hyperlink as (its text, its target), in document order, tables included."""
    document = docx.Document(io.BytesIO(_data(source)))
    rels = document.part.rels
    out = []
    for link in document.element.body.iter(qn("w:hyperlink")):
        rel = rels[link.get(qn("r:id"))]
        assert rel.reltype == RELATIONSHIP_TYPE.HYPERLINK and rel.is_external
        text = "".join(t.text or "" for t in link.iter(qn("w:t")))
        out.append((text, rel.target_ref))
    return out


def docx_tables(source: bytes | Path) -> list[list[list[str]]]:
    document = docx.Document(io.BytesIO(_data(source)))
    return [[[cell.text for cell in row.cells] for row in table.rows] for table in document.tables]


def cited_quotes(report: dict[str, Any]) -> list[str]:
    """The verified quotes a report's sentences cite (what its Sources section shows)."""
    cited = {
        cid
        for sentence in [
            *report["summary"],
            *(s for sec in report["sections"] for p in sec["paragraphs"] for s in p["sentences"]),
        ]
        for cid in sentence["citations"]
    }
    return [flat(item["quote"]) for item in report["evidence"] if item["id"] in cited]


def odt_text(source: bytes | Path) -> str:
    """Every paragraph's and heading's text, tables included, whitespace collapsed."""
    document = opendocument.load(io.BytesIO(_data(source)))
    parts = [
        teletype.extractText(element)
        for element in document.text.childNodes
        if element.qname[1] in ("h", "p")
    ]
    for cell in document.getElementsByType(odf_table.TableCell):
        parts.append(teletype.extractText(cell))
    for listed in document.getElementsByType(text.ListItem):
        parts.append(teletype.extractText(listed))
    return flat(" ".join(parts))


def odt_links(source: bytes | Path) -> list[tuple[str, str]]:
    """Every hyperlink as (its text, its target), in document order."""
    document = opendocument.load(io.BytesIO(_data(source)))
    return [
        (teletype.extractText(link), str(link.getAttribute("href")))
        for link in document.getElementsByType(text.A)
    ]


def odt_headings(source: bytes | Path) -> list[tuple[int, str]]:
    document = opendocument.load(io.BytesIO(_data(source)))
    return [
        (int(h.getAttribute("outlinelevel")), teletype.extractText(h))
        for h in document.getElementsByType(text.H)
    ]


def odt_tables(source: bytes | Path) -> list[list[list[str]]]:
    document = opendocument.load(io.BytesIO(_data(source)))
    return [
        [
            [teletype.extractText(cell) for cell in row.getElementsByType(odf_table.TableCell)]
            for row in found.getElementsByType(odf_table.TableRow)
        ]
        for found in document.getElementsByType(odf_table.Table)
    ]
