"""Binary report formats: PDF (fpdf2) and DOCX (python-docx), both pure Python.

Both draw the page-neutral ``models.document.Document`` a recipe builds from its result
(``Recipe.document``: ``export.report_document`` for a Report, the employer
recipe's ``document`` module for its profile), so they carry what the markdown and HTML
renderings carry, with the same link rules; ``formats.render_bytes`` is the way in for a
run's document in any format. Rendering reads nothing but the font files it is given;
``fonts.find_fonts`` decides which (the ``pdf_fonts`` setting first).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:  # the names above are light (the CLI reads them for --help); the
    # models load pydantic, so they are imported where a report is exported
    from deepresearch.models import Report
    from deepresearch.models.document import Document

#: the binary formats (every format: ``export.formats.FORMATS``)
BinaryFormat = Literal["pdf", "docx"]
BINARY_FORMATS: tuple[BinaryFormat, ...] = get_args(BinaryFormat)
MEDIA_TYPES: dict[str, str] = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}


def export_document(doc: Document, fmt: str, *, fonts: Sequence[Path] | None = None) -> bytes:
    """``doc`` as ``pdf`` or ``docx`` bytes; ``fonts`` are the PDF's TrueType files
    (None: the ones ``find_fonts`` finds on this machine)."""
    # imported when used: fpdf2 and python-docx bring Pillow, fontTools and lxml, which
    # every other command would otherwise load at start
    if fmt == "pdf":
        from deepresearch.export.fonts import find_fonts
        from deepresearch.export.pdf import to_pdf

        return to_pdf(doc, find_fonts() if fonts is None else fonts)
    if fmt == "docx":
        from deepresearch.export.docx import to_docx

        return to_docx(doc)
    raise ValueError(f"unknown binary format {fmt!r}; choose one of {', '.join(BINARY_FORMATS)}")


def export_report(report: Report, fmt: str, *, fonts: Sequence[Path] | None = None) -> bytes:
    from deepresearch.export.report_document import report_document

    return export_document(report_document(report), fmt, fonts=fonts)
