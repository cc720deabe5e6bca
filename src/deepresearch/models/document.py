"""A page-layout-neutral document: headings, paragraphs of spans, lists, quotes and
tables. Pure data, no rendering.

Each recipe's result is built into one (``Recipe.document``: a research Report by
``export.report_document``, an employer profile by ``recipes.employer.document``), and
the binary exports (``export.pdf``, ``export.docx``) draw it. Whoever builds a document
has already made its text safe (neutralized, flattened) and decided its links.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

ParagraphStyle = Literal["body", "notice", "quote", "note"]


@dataclass(frozen=True)
class Span:
    """A run of text; ``url`` makes it a link, ``mark`` a warning (an audit flag)."""

    text: str
    url: str | None = None
    bold: bool = False
    italic: bool = False
    mark: bool = False


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


@dataclass(frozen=True)
class Table:
    """A header row and rows of cells; one span per cell (a cell links when its span
    does). ``widths`` are the columns' shares of the page width."""

    header: tuple[str, ...]
    rows: tuple[tuple[Span, ...], ...]
    widths: tuple[float, ...]


Block = Heading | Paragraph | ItemList | Table


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
        for row in block.rows:
            yield from row
