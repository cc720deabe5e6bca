"""A ``models.document.Document`` as DOCX bytes, with python-docx (pure Python).

Headings use Word's heading styles (so the navigation pane lists them), lists the list
styles, quotes the Quote style, tables the Table Grid style. Links are real hyperlinks:
python-docx has no call for them, so each is a ``w:hyperlink`` element pointing at an
external relationship of the document part, the form Word itself writes. Text is stored
as Unicode (Word picks fonts per script); characters XML cannot hold are dropped. The
archive's entries are dated by the document (``export.archive``), so the same report
gives the same bytes.
"""

from __future__ import annotations

import io
import re

import docx
from docx.enum.text import WD_COLOR_INDEX
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Emu, Pt, RGBColor
from docx.table import _Cell
from docx.text.paragraph import Paragraph as DocxParagraph

from deepresearch.export.archive import EPOCH, fixed_dates
from deepresearch.export.figures import caption_paragraph
from deepresearch.models.document import (
    Block,
    Document,
    Figure,
    Heading,
    ItemList,
    Paragraph,
    SourceList,
    Span,
    Table,
)

LINK = RGBColor(0x06, 0x45, 0xAD)
GREY = RGBColor(0x55, 0x55, 0x55)
WARN = RGBColor(0x96, 0x46, 0x00)
#: what XML 1.0 cannot carry (python-docx refuses it)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("", text)


def to_docx(doc: Document) -> bytes:
    out = docx.Document()
    props = out.core_properties
    props.title = _xml(doc.title)[:255]
    props.subject = _xml(doc.subject)[:255]
    props.author = "deepresearch"
    props.last_modified_by = "deepresearch"
    props.created = props.modified = doc.created or EPOCH
    props.revision = 1
    for block in doc.blocks:
        _block(out, block)
    buffer = io.BytesIO()
    out.save(buffer)
    return fixed_dates(buffer.getvalue(), doc.created or EPOCH)


def _block(out: docx.document.Document, block: Block) -> None:
    if isinstance(block, Heading):
        out.add_heading(_xml(block.text), level=0 if block.level == 1 else min(block.level - 1, 9))
    elif isinstance(block, Paragraph):
        style = {"body": None, "notice": "Intense Quote", "quote": "Quote", "note": None}
        paragraph = out.add_paragraph(style=style[block.style])
        _spans(paragraph, block.spans, size=8.5 if block.style == "note" else None)
        if block.style == "note":
            for run in paragraph.runs:
                run.font.color.rgb = GREY
    elif isinstance(block, ItemList):
        for item in block.items:
            paragraph = out.add_paragraph(style="List Number" if block.ordered else "List Bullet")
            _spans(paragraph, item)
    elif isinstance(block, SourceList):
        for each in block.paragraphs():
            _block(out, each)
    elif isinstance(block, Figure):
        _figure(out, block)
    else:
        _table(out, block)


def _spans(paragraph: DocxParagraph, spans: tuple[Span, ...], *, size: float | None = None) -> None:
    for span in spans:
        run = paragraph.add_run(_xml(span.text))
        run.bold = span.bold or None
        run.italic = span.italic or None
        if size is not None:
            run.font.size = Pt(size)
        if span.mark:
            run.font.color.rgb = WARN
            run.font.highlight_color = WD_COLOR_INDEX.YELLOW
        if span.url:
            run.font.color.rgb = LINK
            run.underline = True
            _wrap_in_link(paragraph, run._r, span.url)


def _wrap_in_link(paragraph: DocxParagraph, run_element: object, url: str) -> None:
    """Move the run just added into a ``w:hyperlink`` to ``url``."""
    rel_id = paragraph.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), rel_id)
    link.append(run_element)  # lxml moves it out of the paragraph
    paragraph._p.append(link)


def _figure(out: docx.document.Document, block: Figure) -> None:
    """The image at its share of the text width, its alt text as the picture's
    description, its caption under it."""
    section = out.sections[-1]
    text_width = (
        (section.page_width or 0) - (section.left_margin or 0) - (section.right_margin or 0)
    )
    out.add_picture(io.BytesIO(block.image), width=Emu(int(text_width * block.width)))
    for properties in out.paragraphs[-1]._p.iter(qn("wp:docPr")):
        properties.set("descr", _xml(block.alt))
    _block(out, caption_paragraph(block))


def _table(out: docx.document.Document, block: Table) -> None:
    table = out.add_table(rows=1, cols=len(block.narrow_header()))
    table.style = "Table Grid"
    for cell, name in zip(table.rows[0].cells, block.narrow_header(), strict=True):
        _cell(cell, Span(name, bold=True))
    for cells in block.merged_rows():
        row = table.add_row().cells
        for cell, span in zip(row, cells, strict=True):
            _cell(cell, span)


def _cell(cell: _Cell, span: Span) -> None:
    _spans(cell.paragraphs[0], (span,), size=8)
