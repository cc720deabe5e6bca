"""Every report format from one place, for any recipe's result: JSON from the recipe's
``to_json``, every other format drawn from its page-neutral ``document`` (md, html, pdf,
docx, odt, latex, and the bibliography formats bibtex, ris, csljson from its
references). The CLI, the API and the MCP server all write reports through
``render_text`` and ``render_bytes``, with the recipe the run's id or job names
(``recipes.registry``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

from pydantic import BaseModel

from deepresearch.export import (
    DRAWN_FORMATS,
    MEDIA_TYPES,
    BinaryFormat,
    DrawnTextFormat,
    export_document,
)
from deepresearch.export.fonts import find_fonts
from deepresearch.models.document import Document

if TYPE_CHECKING:
    from deepresearch.recipes.base import Recipe

R = TypeVar("R", bound=BaseModel)

#: the formats written as text: markdown and HTML drawn from the document, and JSON
TextFormat = Literal["md", "html", "json"]
TEXT_FORMATS: tuple[TextFormat, ...] = get_args(TextFormat)
#: every format a report can be had in: the one list the CLI, the API, the MCP server and
#: the page take (or a test checks against)
ReportFormat = Literal[TextFormat, BinaryFormat, DrawnTextFormat]
FORMATS: tuple[ReportFormat, ...] = get_args(ReportFormat)
TEXT_MEDIA_TYPES = {
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "json": "application/json",
}


def media_type(fmt: str) -> str:
    return MEDIA_TYPES.get(fmt) or TEXT_MEDIA_TYPES[fmt]


def render_text(recipe: Recipe[Any, R], result: R, fmt: str) -> str:
    """``result`` (``recipe``'s) as ``md``, ``html`` or ``json``; ValueError for another
    format."""
    from deepresearch.export import html, markdown

    if fmt == "md":
        return markdown.to_markdown(recipe.document(result))
    if fmt == "html":
        return html.to_html(recipe.document(result))
    if fmt == "json":
        return recipe.to_json(result)
    raise ValueError(f"unknown text format {fmt!r}; choose one of {', '.join(TEXT_FORMATS)}")


def render_document(document: Document, fmt: str, json_text: Callable[[], str]) -> bytes:
    """A result that is not a recipe's (a watch's change report) in ``fmt``: JSON from
    ``json_text``, every other format drawn from ``document``. ValueError for an
    unknown format."""
    from deepresearch.export import html, markdown

    if fmt == "md":
        return markdown.to_markdown(document).encode("utf-8")
    if fmt == "html":
        return html.to_html(document).encode("utf-8")
    if fmt == "json":
        return json_text().encode("utf-8")
    if fmt in DRAWN_FORMATS:
        return export_document(document, fmt, fonts=find_fonts(()) if fmt == "pdf" else ())
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def render_bytes(
    recipe: Recipe[Any, R], result: R, fmt: str, *, pdf_fonts: Sequence[Path] = ()
) -> bytes:
    """``result`` (``recipe``'s) in ``fmt``. A PDF embeds ``pdf_fonts`` (the
    ``pdf_fonts`` setting) and then the system fonts ``find_fonts`` finds. ValueError for
    an unknown format."""
    if fmt in DRAWN_FORMATS:
        fonts = find_fonts(pdf_fonts) if fmt == "pdf" else ()
        return export_document(recipe.document(result), fmt, fonts=fonts)
    return render_text(recipe, result, fmt).encode("utf-8")
