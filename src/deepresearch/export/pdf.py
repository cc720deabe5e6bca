"""A ``models.document.Document`` as PDF bytes, with fpdf2 (pure Python).

Links are real link annotations (a citation ``[n]`` opens its source), tables are drawn
as tables (the sources considered, the employer's routing), headings become the PDF's
outline. Text is embedded with the TrueType fonts given (``export.fonts.find_fonts``),
the first as the main font and the rest as fallbacks for scripts it lacks. A character
that no font covers is drawn as "?" and the first page says how many there were and that
the other formats keep them: the export degrades visibly, it never fails on text.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import WrapMode
from fpdf.fonts import FontFace

from deepresearch.export.figures import caption_paragraph, pixels
from deepresearch.export.fonts import bold_face
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

log = logging.getLogger(__name__)

#: a fixed date when the document has none: the same report gives the same bytes
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
REPLACEMENT = "?"
#: characters that carry no glyph and are dropped before layout
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
#: the built-in font is Latin-1: typographic characters get their plain forms
_PLAIN = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "‘": "'",
        "’": "'",
        "—": "-",
        "–": "-",
        "‑": "-",
        "…": "...",
        "•": "*",
        "⚠": "!",
        "×": "x",
        "≥": ">=",
        "≤": "<=",
        "→": "->",
    }
)

LINK = (6, 69, 173)
INK = (26, 26, 26)
GREY = (85, 85, 85)
WARN = (150, 70, 0)
SIZES = {"body": 10.5, "notice": 10.0, "quote": 10.0, "note": 8.5}


@dataclass
class _Faces:
    family: str
    covered: frozenset[int] | None  # None: the built-in Latin-1 font
    missing: int = 0

    def fit(self, text: str) -> str:
        """``text`` as the fonts can draw it: uncovered characters become "?"."""
        text = text.translate(_INVISIBLE)
        if self.covered is None:
            text = text.translate(_PLAIN)
            ok = [char if ord(char) < 256 and char.isprintable() else None for char in text]
        else:
            ok = [char if ord(char) in self.covered or char == " " else None for char in text]
        self.missing += ok.count(None)
        return "".join(REPLACEMENT if char is None else char for char in ok)


def to_pdf(doc: Document, fonts: Sequence[Path] = ()) -> bytes:
    pdf = FPDF(format="A4")
    pdf.set_creation_date(doc.created or EPOCH)
    pdf.set_margins(18, 16, 18)
    pdf.set_auto_page_break(True, margin=16)
    faces = _load_fonts(pdf, fonts)
    pdf.set_title(faces.fit(doc.title))
    if doc.subject:
        pdf.set_subject(faces.fit(doc.subject))
    pdf.set_creator("deepresearch")
    # count what cannot be shown before drawing, so the first page can say so
    missing = _Faces(faces.family, faces.covered)
    for text in _texts(doc.blocks):
        missing.fit(text)
    pdf.add_page()
    for index, block in enumerate(doc.blocks):
        _draw(pdf, faces, block)
        if index == 0 and missing.missing:
            _draw(pdf, faces, _missing_notice(missing.missing))
    return bytes(pdf.output())


def _missing_notice(count: int) -> Paragraph:
    text = (
        f"{count} character(s) of this report could not be shown in this PDF, because no "
        "font here covers them; they appear as “?”. The Markdown, HTML and DOCX versions "
        "keep them, or set pdf_fonts to a font that covers them."
    )
    return Paragraph((Span(text),), "notice")


def _load_fonts(pdf: FPDF, fonts: Sequence[Path]) -> _Faces:
    loaded: list[tuple[str, Path]] = []
    covered: set[int] = set()
    for path in fonts:
        family = f"f{len(loaded)}"
        try:
            pdf.add_font(family, "", str(path))
        except Exception:  # a broken or unsupported font file: use the others
            log.warning("cannot use the font %s for PDF reports", path, exc_info=True)
            continue
        bold = bold_face(path) if not loaded else None
        try:
            pdf.add_font(family, "B", str(bold or path))
        except Exception:
            pdf.add_font(family, "B", str(path))
        pdf.add_font(family, "I", str(path))
        pdf.add_font(family, "BI", str(bold or path))
        covered |= set(pdf.fonts[family].cmap)  # type: ignore[union-attr]
        loaded.append((family, path))
    if not loaded:
        return _Faces("helvetica", None)
    if len(loaded) > 1:
        pdf.set_fallback_fonts([family for family, _ in loaded[1:]], exact_match=False)
    return _Faces(loaded[0][0], frozenset(covered))


def _texts(blocks: Iterable[Block]) -> Iterable[str]:
    for block in blocks:
        if isinstance(block, Heading):
            yield block.text
        elif isinstance(block, Paragraph):
            yield from (span.text for span in block.spans)
        elif isinstance(block, ItemList):
            for item in block.items:
                yield from (span.text for span in item)
        elif isinstance(block, SourceList):
            yield from _texts(block.paragraphs())
        elif isinstance(block, Figure):
            yield from (span.text for span in block.caption)
        else:
            yield from block.narrow_header()
            for row in block.merged_rows():
                yield from (span.text for span in row)


def _draw(pdf: FPDF, faces: _Faces, block: Block) -> None:
    if isinstance(block, Heading):
        _heading(pdf, faces, block)
    elif isinstance(block, Paragraph):
        _paragraph(pdf, faces, block)
    elif isinstance(block, ItemList):
        _list(pdf, faces, block)
    elif isinstance(block, SourceList):
        for paragraph in block.paragraphs():
            _paragraph(pdf, faces, paragraph)
    elif isinstance(block, Figure):
        _figure(pdf, faces, block)
    else:
        _table(pdf, faces, block)


def _heading(pdf: FPDF, faces: _Faces, block: Heading) -> None:
    size = 17.0 if block.level == 1 else 13.0
    text = faces.fit(block.text)
    pdf.ln(2 if block.level == 1 else 4)
    pdf.set_text_color(*INK)
    pdf.set_font(faces.family, "B", size)
    pdf.start_section(text or "-", level=max(0, block.level - 1), strict=False)
    pdf.multi_cell(0, size * 0.5, text, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(1.5)


def _spans(
    pdf: FPDF, faces: _Faces, spans: Iterable[Span], size: float, color: tuple[int, ...]
) -> None:
    height = size * 0.5
    for span in spans:
        style = ("B" if span.bold else "") + ("I" if span.italic else "")
        if span.url:
            pdf.set_text_color(*LINK)
            style += "U"
        elif span.mark:
            pdf.set_text_color(*WARN)
        else:
            pdf.set_text_color(*color)
        pdf.set_font(faces.family, style, size)
        pdf.write(height, faces.fit(span.text), link=span.url or "")


def _paragraph(pdf: FPDF, faces: _Faces, block: Paragraph) -> None:
    size = SIZES[block.style]
    color = {"body": INK, "notice": WARN, "quote": GREY, "note": GREY}[block.style]
    indent = 8.0 if block.style == "quote" else 0.0
    left = pdf.l_margin
    pdf.set_left_margin(left + indent)
    pdf.set_x(left + indent)
    _spans(pdf, faces, block.spans, size, color)
    pdf.set_left_margin(left)
    pdf.ln(size * 0.5)
    pdf.ln(1.8)


def _list(pdf: FPDF, faces: _Faces, block: ItemList) -> None:
    left = pdf.l_margin
    size = SIZES["body"]
    for number, item in enumerate(block.items, start=1):
        pdf.set_x(left)
        pdf.set_text_color(*INK)
        pdf.set_font(faces.family, "", size)
        bullet = f"{number}. " if block.ordered else faces.fit("• ")
        pdf.write(size * 0.5, bullet)
        pdf.set_left_margin(left + 6)
        _spans(pdf, faces, item, size, INK)
        pdf.set_left_margin(left)
        pdf.ln(size * 0.5)
        pdf.ln(0.8)
    pdf.ln(1.2)


def _figure(pdf: FPDF, faces: _Faces, block: Figure) -> None:
    """The image at its share of the text width (on a new page when it does not fit),
    its caption under it."""
    width = pdf.epw * block.width
    wide, high = pixels(block)
    height = width * high / wide if wide else 0.0
    if height and pdf.will_page_break(height):
        pdf.add_page()
    pdf.image(io.BytesIO(block.image), x=pdf.l_margin, w=width, alt_text=faces.fit(block.alt))
    pdf.ln(1)
    _paragraph(pdf, faces, caption_paragraph(block))


def _table(pdf: FPDF, faces: _Faces, block: Table) -> None:
    size = 7.5
    pdf.set_text_color(*INK)
    pdf.set_font(faces.family, "", size)
    with pdf.table(
        col_widths=block.widths,
        text_align="LEFT",
        line_height=size * 0.45,
        wrapmode=WrapMode.WORD,
        headings_style=FontFace(emphasis="BOLD"),
        padding=0.8,
    ) as table:
        header = table.row()
        for name in block.narrow_header():
            header.cell(faces.fit(name))
        for cells in block.merged_rows():
            row = table.row()
            for span in cells:
                style = FontFace(
                    emphasis="BOLD" if span.bold else None,
                    color=LINK if span.url else None,
                )
                row.cell(faces.fit(span.text), style=style, link=span.url)
    pdf.ln(2)
