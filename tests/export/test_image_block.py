"""The Document's image block (issue 26), drawn by every format: embedded in HTML as a
``data:`` URI (the page requests nothing), in PDF, DOCX and ODT as an image; markdown and
LaTeX show its caption and credit; each with its citation. The same document gives the
same bytes."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import replace
from datetime import UTC, datetime

import docx
import pytest
from odf import draw, opendocument
from PIL import Image
from pypdf import PdfReader

from deepresearch.export import export_document
from deepresearch.export.html import to_html
from deepresearch.export.markdown import to_markdown
from deepresearch.models.document import (
    Document,
    Heading,
    ImageBlock,
    ImageCitation,
    Paragraph,
    Span,
)

from .reading import docx_links, pdf_links, pdf_text


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (20, 120, 220)).save(out, format="PNG")
    return out.getvalue()


def _doc(width: int = 120, height: int = 80) -> Document:
    image = ImageBlock(
        data=_png(width, height),
        mime="image/png",
        width=width,
        height=height,
        caption="Rain in Paris by month",
        alt="A bar chart",
        credit="Figure from meteo.example: Rain in Paris",
        url="https://meteo.example/rain",
        citations=(ImageCitation(2, "https://meteo.example/rain", "Rain in Paris by month"),),
    )
    blocks = (Heading(1, "Rain"), Paragraph((Span("Paris is wet."),)), image)
    return Document("Rain", blocks, created=datetime(2026, 1, 2, tzinfo=UTC))


def test_html_embeds_the_image_and_cites_its_source() -> None:
    html = to_html(_doc())
    assert re.search(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="A bar chart"', html)
    assert '<a class="cite" href="#src-2"' in html
    assert 'href="https://meteo.example/rain"' in html
    assert "<figcaption" in html and "Rain in Paris by month" in html


def test_markdown_shows_the_caption_and_its_credit_not_the_image() -> None:
    text = to_markdown(_doc())
    assert "**Figure:** _Rain in Paris by month_" in text
    assert "[Figure from meteo.example: Rain in Paris](https://meteo.example/rain) [2]" in text
    assert "data:" not in text and "![" not in text


def test_pdf_docx_and_odt_embed_the_image_with_its_caption() -> None:
    doc = _doc()
    pdf = export_document(doc, "pdf", fonts=())
    assert sum(len(page.images) for page in PdfReader(io.BytesIO(pdf)).pages) == 1
    assert "Rain in Paris by month" in pdf_text(pdf)
    assert "https://meteo.example/rain" in pdf_links(pdf)

    data = export_document(doc, "docx")
    document = docx.Document(io.BytesIO(data))
    assert len(document.inline_shapes) == 1
    assert ("Figure from meteo.example: Rain in Paris", "https://meteo.example/rain") in docx_links(
        data
    )

    odt = export_document(doc, "odt")
    loaded = opendocument.load(io.BytesIO(odt))
    (image,) = loaded.getElementsByType(draw.Image)
    assert (
        zipfile.ZipFile(io.BytesIO(odt)).read(str(image.getAttribute("href")))
        == _doc().blocks[2].data
    )  # type: ignore[union-attr]


def test_latex_shows_the_caption_and_credit() -> None:
    tex = export_document(_doc(), "latex").decode()
    assert "\\textbf{Figure:} \\emph{Rain in Paris by month}" in tex
    assert "\\href{https://meteo.example/rain}" in tex


def test_a_wide_image_fits_the_page_in_pdf_and_docx() -> None:
    doc = _doc(width=3000, height=1000)
    pdf = PdfReader(io.BytesIO(export_document(doc, "pdf", fonts=())))
    assert sum(len(page.images) for page in pdf.pages) == 1
    shape = docx.Document(io.BytesIO(export_document(doc, "docx"))).inline_shapes[0]
    assert shape.width is not None and shape.width.inches == pytest.approx(6.0, abs=0.01)


@pytest.mark.parametrize("fmt", ["pdf", "docx", "odt"])
def test_the_same_document_gives_the_same_bytes(fmt: str) -> None:
    assert export_document(_doc(), fmt, fonts=()) == export_document(_doc(), fmt, fonts=())


def test_an_image_may_cite_several_sources() -> None:
    """A chart drawn from several quotes cites each of their sources, as its points do."""
    image = replace(
        _doc().blocks[2],  # type: ignore[type-var]
        credit="",
        url=None,
        citations=(ImageCitation(1, "https://a.example", "q1"), ImageCitation(3, None, "q3")),
    )
    doc = Document("Chart", (image,))
    html = to_html(doc)
    assert (
        'href="#src-1" title="q1">[1]</a><a class="cite" href="#src-3" title="q3">[3]</a>' in html
    )
    assert to_markdown(doc).strip() == "**Figure:** _Rain in Paris by month_ [1][3]"
