"""Every report format from one place: the text ones (md, html, json, from
``core.render`` and the employer recipe's renderer) and the binary ones (pdf, docx), for
a research Report or an employer profile, as bytes. The CLI, the API and the MCP server
all write reports through ``result_bytes``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepresearch.core.render import render
from deepresearch.export import BINARY_FORMATS, MEDIA_TYPES, export_document, export_report
from deepresearch.models import Report
from deepresearch.recipes.employer import EmployerResult, render_employer
from deepresearch.recipes.employer.document import employer_document

FORMATS: tuple[str, ...] = ("md", "html", "json", *BINARY_FORMATS)
TEXT_MEDIA_TYPES = {
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "json": "application/json",
}

Result = Report | EmployerResult


def media_type(fmt: str) -> str:
    return MEDIA_TYPES.get(fmt) or TEXT_MEDIA_TYPES[fmt]


def result_bytes(result: Result, fmt: str, *, fonts: Sequence[Path] | None = None) -> bytes:
    """``result`` in ``fmt``; ``fonts`` are the PDF's (None: found on this machine)."""
    if isinstance(result, EmployerResult):
        if fmt in BINARY_FORMATS:
            return export_document(employer_document(result), fmt, fonts=fonts)
        return render_employer(result, fmt).encode("utf-8")
    if fmt in BINARY_FORMATS:
        return export_report(result, fmt, fonts=fonts)
    return render(result, fmt).encode("utf-8")


def stored_result(kind: str, document: dict[str, Any]) -> Result:
    """A finished job's stored document as the model it was made from."""
    if kind == "employer":
        return EmployerResult.model_validate(document)
    return Report.model_validate(document)
