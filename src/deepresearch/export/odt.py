"""A ``models.document.Document`` as ODT bytes (OpenDocument Text, LibreOffice's own
format), with odfpy (pure Python).

Headings are ``text:h`` with outline levels (the navigator lists them), lists are
bulleted or numbered ``text:list``s, quotes use the Quotations style, tables are tables
(the columns a narrow page shows, as in the DOCX), links are ``text:a`` hyperlinks. Text
is stored as Unicode (the office suite picks fonts per script); characters XML cannot
hold are dropped. The archive's entries are dated by the document (``export.archive``)
and each part declares the namespaces its document uses, so the same report gives the
same bytes in any process.
"""

from __future__ import annotations

import io
import re
import threading
from datetime import UTC

from odf import dc, meta, teletype
from odf.element import Element
from odf.opendocument import OpenDocumentText
from odf.style import (
    ListLevelProperties,
    ParagraphProperties,
    Style,
    TableColumnProperties,
    TableProperties,
    TextProperties,
)
from odf.table import Table as OdfTable
from odf.table import TableCell, TableColumn, TableRow
from odf.text import A, H, List, ListItem, ListLevelStyleBullet, ListLevelStyleNumber, ListStyle, P
from odf.text import Span as OdfSpan

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

#: what XML 1.0 cannot carry
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: the page's text width, for the tables' column widths (A4 less 2 cm margins)
_WIDTH_CM = 17.0
#: odfpy's namespace map is shared by every document being made (see ``to_odt``)
_ONE_AT_A_TIME = threading.Lock()


def _xml(text: str) -> str:
    return _NOT_XML.sub("", text)


class _Styles:
    """The document's named paragraph styles and its automatic text and list styles."""

    def __init__(self, out: OpenDocumentText) -> None:
        self.out = out
        self.paragraph = {
            "body": self._paragraph("Text_20_body", "Text body", size="11pt"),
            "quote": self._paragraph("Quotations", "Quotations", size="10pt", indent="1cm"),
            "notice": self._paragraph("Notice", "Notice", size="10pt", color="#964600"),
            "note": self._paragraph("Note", "Note", size="8.5pt", color="#555555"),
            "cell": self._paragraph("Table_20_Contents", "Table Contents", size="8pt"),
        }
        self.headings = {
            level: self._paragraph(
                f"Heading_20_{level}", f"Heading {level}", size=size, bold=True, outline=level
            )
            for level, size in ((1, "17pt"), (2, "13pt"), (3, "11.5pt"))
        }
        self.text: dict[tuple[bool, bool, bool, bool], Style] = {}
        self.bullets = self._list("Bullets", ordered=False)
        self.numbers = self._list("Numbers", ordered=True)

    def _paragraph(
        self,
        name: str,
        shown: str,
        *,
        size: str,
        bold: bool = False,
        color: str = "#1a1a1a",
        indent: str = "0cm",
        outline: int | None = None,
    ) -> Style:
        style = Style(name=name, displayname=shown, family="paragraph")
        if outline is not None:
            style.setAttribute("defaultoutlinelevel", str(outline))
        style.addElement(
            ParagraphProperties(
                marginleft=indent, marginright=indent, margintop="0.1cm", marginbottom="0.2cm"
            )
        )
        weight = "bold" if bold else "normal"
        style.addElement(TextProperties(fontsize=size, fontweight=weight, color=color))
        self.out.styles.addElement(style)
        return style

    def span(self, span: Span) -> Style | None:
        """The automatic text style of a span's emphasis (None: plain text)."""
        key = (span.bold, span.italic, span.mark, span.url is not None)
        if not any(key):
            return None
        if key not in self.text:
            props: dict[str, str] = {}
            if span.bold:
                props["fontweight"] = "bold"
            if span.italic:
                props["fontstyle"] = "italic"
            if span.mark:
                props |= {"color": "#964600", "backgroundcolor": "#ffff00"}
            if span.url is not None:
                props |= {
                    "color": "#0645ad",
                    "textunderlinestyle": "solid",
                    "textunderlinewidth": "auto",
                    "textunderlinecolor": "font-color",
                }
            style = Style(name=f"T{len(self.text) + 1}", family="text")
            style.addElement(TextProperties(**props))
            self.out.automaticstyles.addElement(style)
            self.text[key] = style
        return self.text[key]

    def _list(self, name: str, *, ordered: bool) -> ListStyle:
        style = ListStyle(name=name)
        level: Element
        if ordered:
            level = ListLevelStyleNumber(level=1, numsuffix=".", numformat="1")
        else:
            level = ListLevelStyleBullet(level=1, bulletchar="•")
        level.addElement(ListLevelProperties(spacebefore="0.4cm", minlabelwidth="0.5cm"))
        style.addElement(level)
        self.out.automaticstyles.addElement(style)
        return style


def to_odt(doc: Document) -> bytes:
    # odfpy keeps the namespaces it has met in one map for the whole process and declares
    # them all on each part's root: emptied first, the map holds what this document's
    # elements use, in the order they are made, whatever was written or read before
    with _ONE_AT_A_TIME:
        Element.namespaces.clear()
        return _to_odt(doc)


def _to_odt(doc: Document) -> bytes:
    out = OpenDocumentText()
    created = (doc.created or EPOCH).astimezone(UTC).replace(tzinfo=None, microsecond=0)
    out.meta.addElement(dc.Title(text=_xml(doc.title)))
    if doc.subject:
        out.meta.addElement(dc.Subject(text=_xml(doc.subject)))
    out.meta.addElement(meta.InitialCreator(text="deepresearch"))
    out.meta.addElement(meta.CreationDate(text=created.isoformat()))
    out.meta.addElement(dc.Date(text=created.isoformat()))
    styles = _Styles(out)
    for index, block in enumerate(doc.blocks):
        for element in _block(styles, block, index):
            out.text.addElement(element)
    buffer = io.BytesIO()
    out.write(buffer)
    return fixed_dates(buffer.getvalue(), doc.created or EPOCH)


def _block(styles: _Styles, block: Block, index: int) -> list[Element]:
    if isinstance(block, Heading):
        level = min(max(block.level, 1), 3)
        heading = H(outlinelevel=level, stylename=styles.headings[level])
        teletype.addTextToElement(heading, _xml(block.text))
        return [heading]
    if isinstance(block, Paragraph):
        return [_paragraph(styles, block.spans, styles.paragraph[block.style])]
    if isinstance(block, ItemList):
        if not block.items:
            return []
        listed = List(stylename=styles.numbers if block.ordered else styles.bullets)
        for item in block.items:
            entry = ListItem()
            entry.addElement(_paragraph(styles, item, styles.paragraph["body"]))
            listed.addElement(entry)
        return [listed]
    if isinstance(block, SourceList):
        return [element for each in block.paragraphs() for element in _block(styles, each, index)]
    if isinstance(block, Figure):  # the caption (the image: html, pdf, docx)
        return _block(styles, caption_paragraph(block), index)
    return [_table(styles, block, index)]


def _paragraph(styles: _Styles, spans: tuple[Span, ...], style: Style) -> P:
    paragraph = P(stylename=style)
    for span in spans:
        parent: Element = paragraph
        if span.url:
            link = A(type="simple", href=_xml(span.url))
            parent.addElement(link)
            parent = link
        emphasis = styles.span(span)
        if emphasis is not None:
            run = OdfSpan(stylename=emphasis)
            parent.addElement(run)
            parent = run
        teletype.addTextToElement(parent, _xml(span.text))
    return paragraph


def _table(styles: _Styles, block: Table, index: int) -> OdfTable:
    header = block.narrow_header()
    count = max(1, len(header))
    shares = block.widths if len(block.widths) == count else (1.0 / count,) * count
    name = f"Table{index}"
    look = Style(name=name, family="table")
    look.addElement(TableProperties(width=f"{_WIDTH_CM}cm", align="left"))
    styles.out.automaticstyles.addElement(look)
    table = OdfTable(name=name, stylename=look)
    for column, share in enumerate(shares):
        width = Style(name=f"{name}.C{column}", family="table-column")
        width.addElement(TableColumnProperties(columnwidth=f"{share * _WIDTH_CM:.2f}cm"))
        styles.out.automaticstyles.addElement(width)
        table.addElement(TableColumn(stylename=width))
    cell_style = styles.paragraph["cell"]
    rows = [tuple((Span(name, bold=True),) for name in header), *block.narrow_rows()]
    for cells in rows:
        row = TableRow()
        for spans in cells:
            cell = TableCell(valuetype="string")
            cell.addElement(_paragraph(styles, spans, cell_style))
            row.addElement(cell)
        table.addElement(row)
    return table
