"""A page's captioned figures, read from its HTML tree (issue 26).

Extraction (trafilatura) leaves images out on purpose; this reads them beside it, from the
same tree after the hidden elements were dropped (``fetch.extract``), so a caption is
text a browser shows. A candidate is a ``<figure>`` with an ``<img>`` and a non-empty
``<figcaption>``: an image without a caption on the page is never one (its alt text alone
is not shown, so it cannot be checked against what the reader sees). Each keeps its
image's absolute ``http(s)`` address, the page's, its alt text and caption as they are on
the page (whitespace collapsed), and the text around it: the nearest heading before it
and the paragraphs next to it, which say what it is about."""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin, urlsplit

from deepresearch.models.figures import PageFigure

#: candidates kept per page, and the longest caption, alt text and context kept
MAX_FIGURES = 8
MAX_CAPTION = 300
MAX_ALT = 200
MAX_CONTEXT = 600
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def page_figures(root: Any, page_url: str | None) -> tuple[PageFigure, ...]:
    """The captioned figures of the tree ``root`` (lxml, hidden elements already
    dropped), in page order, at most ``MAX_FIGURES``."""
    if not page_url:
        return ()
    out: list[PageFigure] = []
    for figure in root.iter("figure"):
        found = _figure(figure, page_url)
        if found is not None and all(f.image_url != found.image_url for f in out):
            out.append(found)
        if len(out) >= MAX_FIGURES:
            break
    return tuple(out)


def _figure(figure: Any, page_url: str) -> PageFigure | None:
    image = next(figure.iter("img"), None)
    caption_el = next(figure.iter("figcaption"), None)
    if image is None or caption_el is None:
        return None
    caption = _line(caption_el.text_content())[:MAX_CAPTION]
    address = _address(image.get("src") or "", page_url)
    if not caption or address is None:
        return None
    return PageFigure(
        image_url=address,
        page_url=page_url,
        caption=caption,
        alt=_line(image.get("alt") or "")[:MAX_ALT],
        context=_context(figure)[:MAX_CONTEXT],
    )


def _address(src: str, page_url: str) -> str | None:
    """``src`` as an absolute http(s) address (a ``data:`` or script address: None)."""
    src = src.strip()
    if not src or src.startswith(("data:", "javascript:", "blob:")):
        return None
    try:
        address = urljoin(page_url, src)
        scheme = urlsplit(address).scheme.lower()
    except ValueError:
        return None
    return address if scheme in ("http", "https") else None


def _context(figure: Any) -> str:
    """The nearest heading before the figure and the paragraphs beside it."""
    parts: list[str] = []
    heading = _heading_before(figure)
    if heading:
        parts.append(heading)
    before = figure.getprevious()
    after = figure.getnext()
    for element in (before, after):
        if element is not None and isinstance(element.tag, str) and element.tag == "p":
            parts.append(_line(element.text_content()))
    return " ".join(part for part in parts if part)


def _heading_before(figure: Any) -> str:
    for element in figure.itersiblings(preceding=True):
        if isinstance(element.tag, str) and element.tag in _HEADINGS:
            return _line(element.text_content())
    parent = figure.getparent()
    if parent is not None and parent.tag not in ("body", "html"):
        return _heading_before(parent)
    return ""


def _line(text: str) -> str:
    return " ".join(text.split())
