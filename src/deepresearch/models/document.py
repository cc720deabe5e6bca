"""A page-layout-neutral document: headings, paragraphs of spans, lists, quotes and
tables, and the two lists a research report ends with (its sources, and the table of
every source it considered). Pure data, no rendering.

Each recipe's result is built into one (``Recipe.document``: a research Report by
``export.report_document``, an employer profile by ``recipes.employer.document``), and
the binary exports (``export.pdf``, ``export.docx``) draw it. Whoever builds a document
has already made its text safe (neutralized, flattened) and decided its links; the hints
here (a citation, the program's own words, an address shown as text, a table's kind) say
what a piece is, and each renderer decides how it looks (``export.markdown`` for text).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

ParagraphStyle = Literal["body", "notice", "quote", "note"]
#: what a table holds: a report's own content ("data"), the sources considered, or the
#: evaluation's scores (markdown keeps a pipe in a data cell and turns it to ``/`` elsewhere)
TableKind = Literal["data", "considered", "evaluation"]


@dataclass(frozen=True)
class Span:
    """A run of text; ``url`` makes it a link, ``mark`` a warning (an audit flag).

    ``cite`` makes it a citation of source ``n`` (its text ``[n]``); ``own`` says the text
    is the program's own words, not a model's or a page's, so a text format shows it as
    it is; ``code`` says it is an address shown as text, not followed."""

    text: str
    url: str | None = None
    bold: bool = False
    italic: bool = False
    mark: bool = False
    cite: int | None = None
    own: bool = False
    code: bool = False


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Paragraph:
    spans: tuple[Span, ...]
    style: ParagraphStyle = "body"


@dataclass(frozen=True)
class ItemList:
    items: tuple[tuple[Span, ...], ...]
    ordered: bool = False


#: a table cell: its spans, in order
Cell = tuple[Span, ...]


@dataclass(frozen=True)
class Table:
    """A header row and rows of cells. ``widths`` are the columns' shares of the page
    width; ``kind`` what the table holds."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    widths: tuple[float, ...]
    kind: TableKind = "data"

    def merged_rows(self) -> tuple[tuple[Span, ...], ...]:
        """Each cell as one span (``merged``), for a page that draws a cell as one run."""
        return tuple(tuple(merged(cell) for cell in row) for row in self.rows)


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
    """One cited source: its number, title (its link's words), address and site, and the
    verified quotes cited from it."""

    number: int
    title: str
    url: str
    domain: str
    quotes: tuple[str, ...] = ()


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
                        Span(ref.title, url=ref.url),
                        Span(f" — {ref.domain}"),
                    )
                )
            )
            out += [Paragraph((Span(f"“{quote}”"),), "quote") for quote in ref.quotes]
        return tuple(out)


Block = Heading | Paragraph | ItemList | Table | SourceList


@dataclass(frozen=True)
class Document:
    title: str
    blocks: tuple[Block, ...]
    subject: str = ""
    created: datetime | None = None

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
