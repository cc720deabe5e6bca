"""A page-layout-neutral document: headings, paragraphs of spans, lists, quotes and
tables, images (``ImageBlock``), and the two lists a research report ends
with (its sources, and the table of every source it considered). Pure data, no rendering.

Each recipe's result is built into one (``Recipe.document``: a research Report by
``export.report_document``, an employer profile by ``recipes.employer.document``), and
every format but JSON is drawn from it through ``export.formats``: ``export.markdown``,
``export.html``, ``export.pdf``, ``export.docx``, ``export.odt``, ``export.latex``, and
the bibliographies from its ``references``. Whoever builds a document has already made
its text safe (neutralized, flattened) and decided its links; the hints here (a citation
and its quote, the program's own words, an address shown as text, a paragraph's or a
list's role, a table's kind and the columns a narrow page shows, a figure's caption,
a span's text kept whole for a page that reflows it) say what a piece is, and each
renderer decides how it looks.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

ParagraphStyle = Literal["body", "notice", "quote", "note"]
#: what a table holds: a report's own content ("data"), the sources considered, or the
#: evaluation's scores (markdown keeps a pipe in a data cell and turns it to ``/`` elsewhere)
TableKind = Literal["data", "considered", "evaluation"]
#: what a paragraph is, for a page that tells them apart (HTML gives each its class)
ParagraphRole = Literal["", "summary", "confidence", "audit-summary", "usage", "found-by", "judge"]
#: what a list is: plain, a section written as a list of findings, or the evaluation's figures
ListRole = Literal["", "findings", "figures"]


@dataclass(frozen=True)
class Span:
    """A run of text; ``url`` makes it a link, ``mark`` a warning (an audit flag).

    ``cite`` makes it a citation of source ``n`` (its text ``[n]``) and ``note`` holds the
    quote it stands for; ``own`` says the text is the program's own words, not a model's
    or a page's, so a text format shows it as it is; ``code`` says it is an address shown
    as text, not followed. ``full`` is the text for a page that reflows it, where that
    differs: made safe but with its line breaks kept (and the program's own words with
    addresses removed, for a page that follows them)."""

    text: str
    url: str | None = None
    bold: bool = False
    italic: bool = False
    mark: bool = False
    cite: int | None = None
    note: str = ""
    own: bool = False
    code: bool = False
    full: str | None = None


@dataclass(frozen=True)
class Heading:
    """A heading; ``full`` as for a span: its text with its line breaks, where they differ."""

    level: int
    text: str
    full: str | None = None


@dataclass(frozen=True)
class Paragraph:
    spans: tuple[Span, ...]
    style: ParagraphStyle = "body"
    role: ParagraphRole = ""


@dataclass(frozen=True)
class ItemList:
    items: tuple[tuple[Span, ...], ...]
    ordered: bool = False
    role: ListRole = ""


#: a table cell: its spans, in order
Cell = tuple[Span, ...]


@dataclass(frozen=True)
class Table:
    """A header row and rows of cells; ``kind`` what the table holds. ``narrow`` are the
    columns a narrow page shows (markdown, PDF, DOCX; empty: all of them), and ``widths``
    their shares of the page width."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    widths: tuple[float, ...]
    kind: TableKind = "data"
    narrow: tuple[int, ...] = ()

    def narrow_header(self) -> tuple[str, ...]:
        return tuple(self.header[i] for i in self._shown())

    def narrow_rows(self) -> tuple[tuple[Cell, ...], ...]:
        return tuple(tuple(row[i] for i in self._shown()) for row in self.rows)

    def merged_rows(self) -> tuple[tuple[Span, ...], ...]:
        """A narrow page's cells, each as one span (``merged``), for a page that draws a
        cell as one run."""
        return tuple(tuple(merged(cell) for cell in row) for row in self.narrow_rows())

    def _shown(self) -> tuple[int, ...]:
        return self.narrow or tuple(range(len(self.header)))


def merged(cell: Cell) -> Span:
    """A cell's spans as one: their text joined, the first span's emphasis, and a link
    when exactly one span links (a cell citing several sources links none)."""
    urls = [span.url for span in cell if span.url]
    first = cell[0] if cell else Span("")
    return Span(
        "".join(span.text for span in cell),
        url=urls[0] if len(urls) == 1 else None,
        bold=first.bold,
        italic=first.italic,
        mark=first.mark,
    )


@dataclass(frozen=True)
class Source:
    """One cited source: its number, title (its link's words), address (empty: a source
    that is not a page, such as a pasted job posting, and is not linked) and site, the
    verified quotes cited from it, when it was published, where known, and ``detail``,
    said after the site (the program's own words: the page's content-quality tier)."""

    number: int
    title: str
    url: str
    domain: str
    quotes: tuple[str, ...] = ()
    published: datetime | None = None
    detail: str = ""

    @property
    def site(self) -> str:
        """The site, and the detail after it."""
        return f"{self.domain} · {self.detail}" if self.detail else self.domain


@dataclass(frozen=True)
class SourceList:
    """The numbered sources a report's citations point to."""

    sources: tuple[Source, ...]

    def paragraphs(self) -> tuple[Paragraph, ...]:
        """The list as paragraphs, for a page without a list of its own: ``[n]`` and the
        linked title and site, then each quote."""
        out: list[Paragraph] = []
        for ref in self.sources:
            out.append(
                Paragraph(
                    (
                        Span(f"[{ref.number}] ", bold=True),
                        Span(ref.title, url=ref.url or None),
                        Span(f" — {ref.site}"),
                    )
                )
            )
            out += [Paragraph((Span(f"“{quote}”"),), "quote") for quote in ref.quotes]
        return tuple(out)


#: the encodings every renderer can embed
ImageMime = Literal["image/png", "image/jpeg"]


@dataclass(frozen=True)
class ImageCitation:
    """A citation ``[number]`` of an image: the cited source's number in the report, its
    address, and ``note``, what it stands for (a figure's caption as its page has it, a
    chart point's quote)."""

    number: int
    url: str | None = None
    note: str = ""


@dataclass(frozen=True)
class ImageBlock:
    """An image and its caption. ``credit`` says where it came from (a figure's page
    title, linked to ``url``), ``citations`` the sources it is cited as (a figure its
    page; a chart the quotes its points come from); ``alt`` is the text a page shows in
    its place."""

    data: bytes
    mime: ImageMime
    width: int
    height: int
    caption: str
    alt: str = ""
    credit: str = ""
    url: str | None = None
    citations: tuple[ImageCitation, ...] = ()
    #: the caption as spans, when it cites more than one source point by point (a chart:
    #: each point with the citation of its quote); empty: ``caption_spans`` builds it
    spans: tuple[Span, ...] = ()

    def data_uri(self) -> str:
        """The image as a ``data:`` URI (embedded: nothing is requested to show it)."""
        return f"data:{self.mime};base64," + base64.b64encode(self.data).decode("ascii")

    @property
    def extension(self) -> str:
        return "png" if self.mime == "image/png" else "jpg"


Block = Heading | Paragraph | ItemList | Table | SourceList | ImageBlock


def caption_spans(image: ImageBlock) -> tuple[Span, ...]:
    """An image's caption as spans: the caption, then its credit (linked to where it came
    from) and its citations ``[n]``, as a quote is cited."""
    if image.spans:
        return image.spans
    spans = [Span(image.caption, italic=True)]
    if image.credit:
        spans += [Span(" — "), Span(image.credit, url=image.url)]
    if image.citations:
        spans.append(Span(" "))
    for cited in image.citations:
        spans.append(Span(f"[{cited.number}]", url=cited.url, cite=cited.number, note=cited.note))
    return tuple(spans)


@dataclass(frozen=True)
class Document:
    """A document's blocks; ``references`` are the sources it cites, for the bibliography
    formats (BibTeX, RIS, CSL-JSON) and LaTeX's bibliography: a research report's are
    those of its source list, another recipe's the pages its citations point to."""

    title: str
    blocks: tuple[Block, ...]
    subject: str = ""
    created: datetime | None = None
    references: tuple[Source, ...] = ()

    def links(self) -> list[str]:
        """Every link target, in order (tests and callers check them)."""
        out: list[str] = []
        for block in self.blocks:
            for span in _spans(block):
                if span.url:
                    out.append(span.url)
        return out


def _spans(block: Block) -> Iterable[Span]:
    if isinstance(block, Paragraph):
        yield from block.spans
    elif isinstance(block, ItemList):
        for item in block.items:
            yield from item
    elif isinstance(block, Table):
        for row in block.merged_rows():
            yield from row
    elif isinstance(block, SourceList):
        for paragraph in block.paragraphs():
            yield from paragraph.spans
    elif isinstance(block, ImageBlock):
        yield from caption_spans(block)
