"""The report formats drawn from a document: PDF (fpdf2), DOCX (python-docx) and ODT
(odfpy), all pure Python, and the text ones LaTeX, BibTeX, RIS and CSL-JSON.

They draw the page-neutral ``models.document.Document`` a recipe builds from its result
(``Recipe.document``: ``export.report_document`` for a Report, the employer
recipe's ``document`` module for its profile), so they carry what the markdown and HTML
renderings carry, with the same link rules (the bibliography formats: the sources it
cites, ``Document.references``); ``formats.render_bytes`` is the way in for a
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
BinaryFormat = Literal["pdf", "docx", "odt"]
BINARY_FORMATS: tuple[BinaryFormat, ...] = get_args(BinaryFormat)
#: the text formats drawn from a recipe's ``document``: LaTeX, and the bibliography of
#: the sources it cites (BibTeX, RIS, CSL-JSON)
DrawnTextFormat = Literal["latex", "bibtex", "ris", "csljson"]
DRAWN_TEXT_FORMATS: tuple[DrawnTextFormat, ...] = get_args(DrawnTextFormat)
#: every format drawn from a recipe's ``document``
DRAWN_FORMATS: tuple[str, ...] = (*BINARY_FORMATS, *DRAWN_TEXT_FORMATS)
MEDIA_TYPES: dict[str, str] = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "odt": "application/vnd.oasis.opendocument.text",
    "latex": "application/x-tex; charset=utf-8",
    "bibtex": "application/x-bibtex; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
    "csljson": "application/vnd.citationstyles.csl+json; charset=utf-8",
}
#: a file's extension for each format whose name is not its extension
EXTENSIONS: dict[str, str] = {"latex": "tex", "bibtex": "bib", "csljson": "json"}


def extension(fmt: str) -> str:
    """The file extension a report in ``fmt`` is saved with (``latex``: ``tex``)."""
    return EXTENSIONS.get(fmt, fmt)


def export_document(doc: Document, fmt: str, *, fonts: Sequence[Path] | None = None) -> bytes:
    """``doc`` in a format drawn from it (``DRAWN_FORMATS``), as bytes (the text ones
    UTF-8); ``fonts`` are the PDF's TrueType files (None: the ones ``find_fonts`` finds
    on this machine)."""
    # imported when used: fpdf2, python-docx and odfpy bring Pillow, fontTools and lxml,
    # which every other command would otherwise load at start
    if fmt == "pdf":
        from deepresearch.export.fonts import find_fonts
        from deepresearch.export.pdf import to_pdf

        return to_pdf(doc, find_fonts() if fonts is None else fonts)
    if fmt == "docx":
        from deepresearch.export.docx import to_docx

        return to_docx(doc)
    if fmt == "odt":
        from deepresearch.export.odt import to_odt

        return to_odt(doc)
    if fmt in DRAWN_TEXT_FORMATS:
        return _drawn_text(doc, fmt).encode("utf-8")
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(DRAWN_FORMATS)}")


def _drawn_text(doc: Document, fmt: str) -> str:
    from deepresearch.export.bibtex import to_bibtex
    from deepresearch.export.csljson import to_csljson
    from deepresearch.export.latex import to_latex
    from deepresearch.export.ris import to_ris

    draw = {"latex": to_latex, "bibtex": to_bibtex, "ris": to_ris, "csljson": to_csljson}
    return draw[fmt](doc)


def export_report(report: Report, fmt: str, *, fonts: Sequence[Path] | None = None) -> bytes:
    from deepresearch.export.report_document import report_document

    return export_document(report_document(report), fmt, fonts=fonts)
