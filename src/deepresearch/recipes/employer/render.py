"""An EmployerResult as text: ``render_employer`` (markdown, HTML or JSON), for a caller
of the library that holds a result. Every format but JSON is drawn from the profile's
one document (``document.employer_document``) by the shared renderers, as the PDF and
DOCX are (``export.formats``)."""

from __future__ import annotations

from deepresearch.export.formats import render_text
from deepresearch.recipes.employer.models import EmployerResult


def render_employer(result: EmployerResult, fmt: str) -> str:
    """``result`` as ``md``, ``html`` or ``json``; ValueError for another format."""
    from deepresearch.recipes.employer.recipe import RECIPE

    return render_text(RECIPE, result, fmt)
