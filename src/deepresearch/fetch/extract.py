"""Turn fetched bytes into clean text: HTML main text, PDF text, Word (.docx) text, or
plain text / markdown.

``extract`` picks the extractor from the content type and the bytes themselves;
``extract_html``, ``extract_pdf``, ``extract_docx`` and ``extract_plain`` are pure
functions over text or bytes. Every result is cleaned the same way (whitespace collapsed within lines, paragraphs
separated by one blank line, invisible characters dropped) and capped to ``max_chars`` at
a sentence or word boundary.

Text a browser does not show never becomes source text: before extraction, elements
hidden by inline CSS (``display:none``, ``visibility:hidden``, ``font-size:0``,
``opacity:0``, off-screen, text coloured like its background or white on no background),
by a class that a ``<style>`` block or a common utility class hides, by the ``hidden`` or
``aria-hidden`` attributes, and ``<template>`` content are removed. Their text, the HTML
comments, ``alt`` / ``title`` / ``aria-label`` attributes and any Unicode tag characters
are returned as ``ExtractedDoc.hidden_text``, with ``data-*`` attribute text, meta
descriptions and hidden form inputs: never quoted, only scanned for injected
instructions (``deepresearch.injection``).

HTML uses trafilatura with comments off and ``favor_precision``: the best setting measured
on the ScrapingHub article-extraction benchmark. A precision result that looks like a mere
teaser is checked against a wider pass (mean token F1 0.969 over its 181 pages). When
trafilatura finds nothing, a plain lxml pass takes the body text without scripts, styles
and page chrome.
"""

from __future__ import annotations

import codecs
import copy
import io
import json
import logging
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Literal

import htmldate
import lxml.html
import trafilatura
from lxml import etree
from pydantic import BaseModel, ConfigDict, Field
from trafilatura import metadata as tf_metadata
from trafilatura.settings import set_date_params

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.base import FetchedPage
from deepresearch.fetch.figures import page_figures
from deepresearch.fetch.pdf_sandbox import read_pdf
from deepresearch.injection import decode_tags
from deepresearch.models.figures import PageFigure

DocKind = Literal["html", "pdf", "text"]

#: PDFs longer than this are read only up to here
MAX_PDF_PAGES = 50

_LOG = logging.getLogger(__name__)

# trafilatura over lxml crashes the whole process now and then (SIGABRT or SIGSEGV in
# libxml2, no Python traceback) when two threads extract at once: trafilatura issues
# #840 and #925, still open on 2.2; seen here in lxml's parser while three other threads
# were in trafilatura. One HTML extraction at a time per process; the extraction pool's
# worker processes (``extract_pool``) are how to extract in parallel.
_HTML_LOCK = threading.Lock()

# below this many characters, a precision-mode result is checked against a wider pass,
# which wins when the precise text is less than a fifth of it
_SHORT_TEXT = 1_500
_WIDER_RATIO = 0.2

_TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown", "text/csv")
_HTML_TYPES = ("text/html", "application/xhtml+xml", "application/xml", "text/xml")
_TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".text", ".rst", ".csv")
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
# chrome that never carries an article's text, dropped by the lxml fallback
_FALLBACK_DROP = (
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "nav",
    "footer",
    "header",
    "aside",
    "form",
    "iframe",
    "button",
    "select",
)
_BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "blockquote",
        "dd",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "li",
        "main",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "td",
        "th",
        "tr",
        "ul",
        "br",
    ]
)
# labels that browsers treat as windows-1252 (WHATWG encoding standard)
_CP1252_LABELS = frozenset({"iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "ascii"})
_CP1252_LABELS |= {"us-ascii", "cp819", "ibm819", "iso_8859-1"}
_META_CHARSET = re.compile(rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.I)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.I)
_HTML_LANG = re.compile(
    r"""<html\b[^>]*?\blang\s*=\s*["']?([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]+)*)""", re.I
)
_HTML_SNIFF = re.compile(rb"<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]", re.I)
# zero-width, bidi-control, soft hyphen, BOM and Unicode tag characters: invisible in a
# browser, useful only for hiding text (prompt injection) or breaking quote matching
_INVISIBLE = re.compile(
    "[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
_BLANK_RUN = re.compile(r"\n{3,}")
_SENTENCE_END = re.compile(r"""[.!?…。！？]["'”’)\]]*(?=\s)""")
_MD_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.M)
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


class ExtractedDoc(BaseModel):
    """The clean text of one document, with what could be learned about it."""

    model_config = ConfigDict(frozen=True)

    text: str
    title: str = ""
    published: datetime | None = None
    kind: DocKind
    language: str | None = None
    hidden_text: str = Field(
        default="",
        description="text a browser would not show (hidden elements, comments, alt text, "
        "Unicode tag characters): never quotable, kept only to be scanned for instructions",
    )
    figures: tuple[PageFigure, ...] = Field(
        default=(), description="the page's captioned figures (``fetch.figures``)"
    )


# --- entry point -----------------------------------------------------------------------


def extract(page: FetchedPage, *, max_chars: int) -> ExtractedDoc:
    """Extract ``page`` by kind: PDF (content type or ``%PDF-`` magic), HTML, or text.

    Raises FetchBlocked for content that is none of these (images, archives, binaries)
    and FetchError for a PDF that cannot be read.
    """
    media_type = page.content_type.split(";", 1)[0].strip().lower()
    data = page.content
    if data.lstrip()[:5] == b"%PDF-" or media_type == "application/pdf":
        return extract_pdf(data, max_chars)
    if media_type == DOCX_TYPE:
        return extract_docx(data, max_chars)
    header_charset = charset_from_content_type(page.content_type)
    if media_type in _HTML_TYPES or (media_type not in _TEXT_TYPES and _looks_like_html(data)):
        html = decode_html(data, header_charset)
        return extract_html(html, page.final_url or page.url, max_chars)
    path = page.final_url.split("?", 1)[0].split("#", 1)[0].lower()
    if media_type.startswith("text/") or path.endswith(_TEXT_SUFFIXES) or _looks_like_text(data):
        return extract_plain(decode_text(data, header_charset), max_chars)
    shown = media_type or "unknown"
    raise FetchBlocked(f"unsupported content type: {shown}")


# --- HTML ------------------------------------------------------------------------------


def extract_html(html: str, url: str | None, max_chars: int) -> ExtractedDoc:
    """Main text, title, date and language of an HTML page, one page at a time in a
    process (``_HTML_LOCK``: lxml under trafilatura is not safe across threads)."""
    _check_max(max_chars)
    with _HTML_LOCK:
        return _extract_html(html, url, max_chars)


def _extract_html(html: str, url: str | None, max_chars: int) -> ExtractedDoc:
    """The page is parsed once: hidden elements are dropped from that tree, and
    trafilatura (which copies what it is given), the metadata and the fallback all read
    it."""
    text, title, published = "", "", None
    tags = decode_tags(html) if _has_astral(html) else ""  # tag characters are astral
    root = _parse(html)
    if root is None:
        return _html_doc("", "", None, html, tags[:MAX_HIDDEN_CHARS], max_chars)
    hidden = _strip_hidden_tree(root, tags)
    # what trafilatura's own parser leaves out; the comments' text is in ``hidden``
    etree.strip_elements(root, etree.Comment, etree.ProcessingInstruction, with_tail=False)
    figures = page_figures(root, url)  # what the reader sees: hidden ones are gone
    document = _trafilatura(root, url, precise=True)
    if document is not None:
        text = _document_text(document)
        title, published = _metadata(root, url)
    if len(text) < _SHORT_TEXT:
        # precision mode now and then keeps only a teaser: retry without it
        wider = _trafilatura(root, url, precise=False)
        wider_text = _document_text(wider) if wider is not None else ""
        if len(wider_text) * _WIDER_RATIO > len(text):
            text = wider_text
    if not text or not title:
        fallback_text, fallback_title = _lxml_fallback(copy.deepcopy(root))
        text = text or fallback_text
        title = title or fallback_title
    return _html_doc(text, title, published, html, hidden, max_chars).model_copy(
        update={"figures": figures}
    )


def _html_doc(
    text: str, title: str, published: datetime | None, html: str, hidden: str, max_chars: int
) -> ExtractedDoc:
    match = _HTML_LANG.search(html[:20_000])
    language = match.group(1).replace("_", "-").lower() if match else None
    return ExtractedDoc(
        text=truncate(text, max_chars),
        title=title,
        published=published,
        kind="html",
        language=language,
        hidden_text=hidden,
    )


def _parse(html: str) -> Any:
    """The page's tree, or None for markup lxml cannot read (empty, or only a comment)."""
    try:
        return lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return None


def _trafilatura(root: Any, url: str | None, *, precise: bool) -> Any:
    try:
        return trafilatura.bare_extraction(
            root,
            url=url,
            include_comments=False,
            include_tables=True,
            favor_precision=precise,
        )
    except Exception:  # a parser bug must not lose the page: the fallback still runs
        _LOG.debug("trafilatura failed on %s", url, exc_info=True)
        return None


def _metadata(root: Any, url: str | None) -> tuple[str, datetime | None]:
    """Title and publication date the way trafilatura finds them (meta tags, JSON-LD, then
    the page's own title and headings; htmldate for the date), without the author, site,
    category and licence searches a report never shows."""
    try:
        found = tf_metadata.extract_meta_json(root, tf_metadata.examine_meta(root))
        title = found.title or tf_metadata.extract_title(root) or ""
        page_url = found.url or tf_metadata.extract_url(root, url)
        date = htmldate.find_date(root, **{**set_date_params(True), "url": page_url})
    except Exception:  # metadata is a nicety: a parser bug must not lose the page
        _LOG.debug("metadata failed on %s", url, exc_info=True)
        return "", None
    return _one_line(title), _parse_date(date)


def _document_text(document: Any) -> str:
    # trafilatura writes one block (paragraph, heading, list item) per line
    raw = str(getattr(document, "text", None) or "")
    return clean_text(raw.replace("\n", "\n\n"))


def _lxml_fallback(root: Any) -> tuple[str, str]:
    """Body text without chrome, and the <title> (or first <h1>), from a tree it may
    change."""
    title_el = root.find(".//title")
    title = _one_line(title_el.text_content()) if title_el is not None else ""
    if not title:
        h1 = root.find(".//h1")
        title = _one_line(h1.text_content()) if h1 is not None else ""
    for element in list(root.iter(*_FALLBACK_DROP)):
        element.drop_tree()
    body = root.find("body")
    target = body if body is not None else root
    for element in target.iter():
        if isinstance(element.tag, str) and element.tag.lower() in _BLOCK_TAGS:
            element.tail = "\n\n" + (element.tail or "")
            element.text = "\n\n" + (element.text or "")
    text = target.text_content()
    # inside a block, source newlines are just whitespace: join them before cleaning
    paragraphs = (" ".join(part.split()) for part in re.split(r"\n\s*\n", text))
    return clean_text("\n\n".join(paragraphs)), title


# --- hidden text ---------------------------------------------------------------------

_HIDING_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)"
    r"|font-size\s*:\s*0*(?:\.0+)?(?:px|pt|em|rem|%|vw)?\s*(?:!important\s*)?(?:;|$)"
    r"|opacity\s*:\s*0*(?:\.0+)?\s*(?:!important\s*)?(?:;|$)"
    r"|(?<![\w-])color\s*:\s*transparent"
    r"|(?<![\w-])(?:left|top|right|text-indent)\s*:\s*-\d{3,}|clip\s*:\s*rect\(\s*0"
    r"|clip-path\s*:\s*inset\(\s*50%",
    re.I,
)
_ZERO_BOX = re.compile(r"(?:^|;)\s*(?:max-)?(?:height|width)\s*:\s*0(?:px)?\s*(?:;|$)", re.I)
_OVERFLOW_HIDDEN = re.compile(r"overflow\s*:\s*hidden", re.I)
_DECLARATION = re.compile(r"(?<![\w-])([a-z-]+)\s*:\s*([^;]+)", re.I)
_WHITE = frozenset({"#fff", "#ffffff", "white", "rgb(255,255,255)", "rgba(255,255,255,1)"})
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_BRACE = re.compile(r"[{}]")
_SIMPLE_SELECTOR = re.compile(r"^\s*([.#])([\w-]+)\s*$")
# utility classes that hide text in common CSS frameworks (Bootstrap, WordPress, Tailwind)
_HIDING_CLASSES = frozenset(
    {"sr-only", "visually-hidden", "screen-reader-text", "d-none", "hidden", "invisible", "hide"}
)
_TEXT_ATTRIBUTES = ("alt", "title", "aria-label", "aria-description", "placeholder")
# <meta> whose content a crawler or a model reads as a summary of the page
_META_NAMES = frozenset(
    {"description", "keywords", "og:description", "twitter:description", "og:title", "abstract"}
)
# attributes that make an element worth a look in _strip_hidden_tree, besides ``data-*``
# and a class or id the page hides
_TELLING_ATTRIBUTES = frozenset({*_TEXT_ATTRIBUTES, "hidden", "aria-hidden", "style"})
_TELLING_TAGS = frozenset({"template", "meta", "input"})
#: hidden text kept for scanning, at most
MAX_HIDDEN_CHARS = 20_000


def strip_hidden(html: str) -> tuple[str, str]:
    """``html`` without the elements a browser would not show, and the hidden text: those
    elements' text, comments, ``alt`` / ``title`` / ``aria-label`` attributes and Unicode
    tag characters. Unparsable HTML comes back unchanged, with only its tag characters."""
    tags = decode_tags(html) if _has_astral(html) else ""  # tag characters are astral
    root = _parse(html)
    if root is None:
        return html, tags[:MAX_HIDDEN_CHARS]
    hidden = _strip_hidden_tree(root, tags)
    if not hidden:
        return html, ""
    return lxml.html.tostring(root, encoding="unicode"), hidden


def _strip_hidden_tree(root: Any, tags: str) -> str:
    """Drop from ``root`` the elements a browser would not show; their text, the
    comments, the text-bearing attributes and ``tags`` (decoded tag characters), at most
    MAX_HIDDEN_CHARS of it."""
    classes, ids = _hidden_selectors(root)
    parts: list[str] = []
    # only nodes that can hold hidden text, in document order, listed before any drop
    for element in _candidates(root, classes, ids):
        if not isinstance(element.tag, str):  # comments and processing instructions
            if isinstance(element, etree._Comment) and element.text and element.text.strip():
                parts.append(element.text.strip())
            continue
        parts += [element.get(name, "") for name in _TEXT_ATTRIBUTES if element.get(name)]
        parts += _attribute_text(element)
        if element.getparent() is not None and _is_hidden(element, classes, ids):
            parts.append(_block_text(element))
            element.drop_tree()
    parts.append(tags)
    return clean_text("\n".join(part for part in parts if part.strip()))[:MAX_HIDDEN_CHARS]


def _candidates(root: Any, classes: set[str], ids: set[str]) -> list[Any]:
    """Comments, and the elements ``_attribute_text`` or ``_is_hidden`` can say something
    of, in document order: one cheap test of each element's attribute names, so that the
    full tests run on a few elements of a large page rather than on all of them."""
    found = []
    for element in root.iter():
        tag = element.tag
        if not isinstance(tag, str):
            found.append(element)
            continue
        names = element.keys()
        if tag in _TELLING_TAGS or (names and _telling(element, names, classes, ids)):
            found.append(element)
    return found


def _telling(element: Any, names: list[str], classes: set[str], ids: set[str]) -> bool:
    for name in names:
        if name in _TELLING_ATTRIBUTES or name.startswith("data-"):
            return True
    if "class" in names and not classes.isdisjoint((element.get("class") or "").split()):
        return True
    return "id" in names and element.get("id") in ids


def _has_astral(text: str) -> bool:
    """True when ``text`` has a character beyond U+FFFF (two UTF-16 units each): a C-speed
    test that spares most pages the scan for Unicode tag characters."""
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


def _block_text(element: Any) -> str:
    """The text of an element with a line break for each ``<br>`` and block, so that a
    hidden "System:" or "Assistant:" line still starts a line."""
    pieces: list[str] = []
    for node in element.iter():
        tag = node.tag.lower() if isinstance(node.tag, str) else ""
        if tag == "br" or tag in _BLOCK_TAGS:
            pieces.append("\n")
        if isinstance(node.tag, str) and node.text:
            pieces.append(node.text)
        if node is not element and node.tail:
            pieces.append(node.tail)
    return "".join(pieces)


def _reads_as_text(value: str) -> bool:
    """A ``data-*`` value with words in it, not a JSON document or an id."""
    stripped = value.strip()
    if " " not in stripped and len(_PERCENT_ESCAPE.findall(stripped)) < 6:
        return False  # one word, or an id; percent-encoded text still counts
    if stripped[:1] in "{[":
        try:
            json.loads(stripped)
        except ValueError:
            return True
        return False
    return True


def _attribute_text(element: Any) -> list[str]:
    """Words a page keeps in attributes a model may read but a browser does not show:
    ``data-*`` values that read as text (not JSON or ids), meta descriptions, and the
    values of hidden form inputs."""
    found = [
        value
        for name, value in element.attrib.items()
        if name.startswith("data-") and _reads_as_text(value)
    ]
    tag = element.tag.lower()
    if tag == "meta":
        name = (element.get("name") or element.get("property") or "").lower()
        if name in _META_NAMES and element.get("content"):
            found.append(element.get("content"))
    elif (
        tag == "input" and (element.get("type") or "").lower() == "hidden" and element.get("value")
    ):
        found.append(element.get("value"))
    return found


def _hidden_selectors(root: Any) -> tuple[set[str], set[str]]:
    """Classes and ids that the page's ``<style>`` blocks hide (plain ``.x`` / ``#y``
    selectors outside ``@media`` blocks)."""
    classes, ids = set(_HIDING_CLASSES), set[str]()
    for style in root.iter("style"):
        for selectors, body in _top_level_rules(style.text or ""):
            if "@" in selectors:
                continue
            # the cheap test first: most rules have no plain selector to learn from
            simple = [match for match in map(_SIMPLE_SELECTOR.match, selectors.split(",")) if match]
            if simple and _hides(body):
                for match in simple:
                    (classes if match.group(1) == "." else ids).add(match.group(2))
    return classes, ids


def _top_level_rules(css: str) -> Iterator[tuple[str, str]]:
    """(selectors, declarations) of each top-level rule; an ``@media`` block is one rule."""
    css = _CSS_COMMENT.sub("", css)
    depth, selector_start, body_start = 0, 0, 0
    # jump from brace to brace: a style sheet can be hundreds of kilobytes
    for brace in _BRACE.finditer(css):
        index, char = brace.start(), brace.group()
        if char == "{":
            if depth == 0:
                body_start = index + 1
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                yield css[selector_start : body_start - 1], css[body_start:index]
                selector_start = index + 1


def _is_hidden(element: Any, classes: set[str], ids: set[str]) -> bool:
    if element.tag == "template" or element.get("hidden") is not None:
        return True
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return True
    names = (element.get("class") or "").split()
    # "hidden md:block": hidden on small screens only (Tailwind's responsive variants)
    if any(name in classes for name in names) and not any(":" in name for name in names):
        return True
    if element.get("id") in ids:
        return True
    style = element.get("style") or ""
    return bool(style) and (_hides(style) or _invisible_colour(element, style))


def _hides(style: str) -> bool:
    if _HIDING_STYLE.search(style):
        return True
    return bool(_ZERO_BOX.search(style) and _OVERFLOW_HIDDEN.search(style))


def _invisible_colour(element: Any, style: str) -> bool:
    """Text coloured like its own background, or white with no background set on it or
    on any ancestor (the page background is white by default)."""
    declared = _declarations(style)
    colour = declared.get("color")
    if not colour:
        return False
    background = declared.get("background-color") or declared.get("background")
    if background:
        return background == colour
    if colour not in _WHITE:
        return False
    for ancestor in element.iterancestors():
        upper = _declarations(ancestor.get("style") or "")
        if upper.get("background-color") or upper.get("background"):
            return False
    return True


def _declarations(style: str) -> dict[str, str]:
    return {
        name.lower(): "".join(value.lower().replace("!important", "").split())
        for name, value in _DECLARATION.findall(style)
    }


# --- PDF -------------------------------------------------------------------------------


def extract_pdf(data: bytes, max_chars: int, *, max_pages: int = MAX_PDF_PAGES) -> ExtractedDoc:
    """Text of the first ``max_pages`` pages, and the title and date from the metadata.

    The PDF is parsed in a child process with memory, CPU and time limits
    (``deepresearch.fetch.pdf_sandbox``). Raises FetchError when the bytes are not a
    readable PDF, it is encrypted, or reading it exceeds those limits.
    """
    _check_max(max_chars)
    # enough raw text to cut at a boundary after cleaning
    result = read_pdf(data, max_pages=max_pages, max_chars=2 * max_chars + 1_000)
    text = clean_text(result.text)
    return ExtractedDoc(
        text=truncate(text, max_chars),
        title=_one_line(result.title or ""),
        published=result.published,
        kind="pdf",
        hidden_text=decode_tags(result.text)[:MAX_HIDDEN_CHARS],
    )


# --- Word -------------------------------------------------------------------------------


def extract_docx(data: bytes, max_chars: int) -> ExtractedDoc:
    """The paragraphs and table cells of a Word (.docx) document, in order, and its title
    (the document's title property, else its first Title or Heading 1 paragraph).

    Read with python-docx (the library the DOCX export writes with). Raises FetchError
    when the bytes are not a readable .docx."""
    _check_max(max_chars)
    import zipfile

    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(io.BytesIO(data))
        blocks = [p.text for p in document.paragraphs]
        for table in document.tables:
            for row in table.rows:
                blocks.append(" | ".join(cell.text for cell in row.cells))
        title = document.core_properties.title or _docx_heading(document)
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, etree.LxmlError) as exc:
        raise FetchError(f"not a readable .docx document ({type(exc).__name__})") from None
    raw = "\n\n".join(block for block in blocks if block.strip())
    return ExtractedDoc(
        text=truncate(clean_text(raw), max_chars),
        title=_one_line(title or ""),
        kind="text",
        hidden_text=decode_tags(raw)[:MAX_HIDDEN_CHARS],
    )


def _docx_heading(document: Any) -> str:
    for paragraph in document.paragraphs:
        style = getattr(paragraph.style, "name", "") or ""
        if style in ("Title", "Heading 1") and paragraph.text.strip():
            return str(paragraph.text)
    return ""


# --- plain text ------------------------------------------------------------------------


def extract_plain(text: str, max_chars: int) -> ExtractedDoc:
    """Plain text or markdown, kept as written; the title is the first ``# `` heading."""
    _check_max(max_chars)
    return ExtractedDoc(
        text=truncate(clean_text(text), max_chars),
        title=markdown_title(text),
        kind="text",
        hidden_text=decode_tags(text)[:MAX_HIDDEN_CHARS],
    )


def markdown_title(text: str) -> str:
    """The first level-1 ``# `` heading of a markdown text, or ""."""
    match = _MD_HEADING.search(text)
    return _one_line(match.group(1)) if match else ""


# --- text utilities --------------------------------------------------------------------


def clean_text(text: str) -> str:
    """Collapse whitespace within lines, keep line breaks, turn every run of blank lines
    into one (a paragraph break ``\\n\\n``), drop invisible and control characters."""
    text = _CONTROL.sub("", _INVISIBLE.sub("", text))
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return _BLANK_RUN.sub("\n\n", "\n".join(lines)).strip()


def truncate(text: str, max_chars: int) -> str:
    """``text`` cut to at most ``max_chars``: at the last paragraph or sentence end in the
    final 30 % of the window, else at the last word boundary, else mid-word."""
    _check_max(max_chars)
    if len(text) <= max_chars:
        return text
    window = text[: max_chars + 1]  # +1: a boundary right after the cap still counts
    floor = int(max_chars * 0.7)
    best = window.rfind("\n\n", floor)
    for match in _SENTENCE_END.finditer(window, floor):
        if match.end() <= max_chars:
            best = max(best, match.end())
    if best <= 0:
        best = max(window.rfind(" ", 0, max_chars + 1), window.rfind("\n", 0, max_chars + 1))
    if best <= 0:
        best = max_chars
    return text[:best].rstrip()


def charset_from_content_type(content_type: str) -> str | None:
    """The ``charset=`` parameter of a Content-Type header, if it names a known codec."""
    match = _HEADER_CHARSET.search(content_type)
    return _codec(match.group(1)) if match else None


def decode_html(data: bytes, header_charset: str | None = None) -> str:
    """Decode HTML bytes: BOM, then the HTTP header charset, then ``<meta charset>``, then
    UTF-8; undecodable bytes become U+FFFD."""
    bom = _bom_codec(data)
    if bom:
        return data.decode(bom, errors="replace")
    charset = header_charset
    if charset is None:
        match = _META_CHARSET.search(data[:4096])
        charset = _codec(match.group(1).decode("ascii")) if match else None
    if charset in ("utf-16", "utf-16-le", "utf-16-be"):  # a meta tag cannot be utf-16
        charset = None
    return data.decode(charset or "utf-8", errors="replace")


def decode_text(data: bytes, header_charset: str | None = None) -> str:
    """Decode plain text bytes: BOM, then the header charset, then UTF-8 with replacement."""
    codec = _bom_codec(data) or header_charset or "utf-8"
    return data.decode(codec, errors="replace")


def _codec(label: str) -> str | None:
    label = label.strip().strip("\"'").lower()
    if label in _CP1252_LABELS:
        return "cp1252"
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def _bom_codec(data: bytes) -> str | None:
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return None


def _looks_like_html(data: bytes) -> bool:
    return _HTML_SNIFF.search(data[:2048]) is not None


def _looks_like_text(data: bytes) -> bool:
    head = data[:4096]
    if b"\x00" in head and _bom_codec(head) != "utf-16":
        return False
    decoded = head.decode("utf-8", errors="replace")
    return decoded.count("\ufffd") <= max(4, len(decoded) // 50)


def _parse_date(value: Any) -> datetime | None:
    match = _DATE.match(str(value or ""))
    if not match:
        return None
    try:
        year, month, day = (int(part) for part in match.groups())
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def _one_line(text: str) -> str:
    return " ".join(_INVISIBLE.sub("", text).split())


def _check_max(max_chars: int) -> None:
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
