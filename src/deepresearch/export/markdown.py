"""A page-neutral ``models.document.Document`` as markdown. Pure.

Whoever built the document made its text safe and put it on one line; here it is also
escaped, so no model's or page's words can become a link, an image or raw HTML:
brackets and ``<`` are escaped in text, and a pipe cannot end a table cell. The
program's own words (``Span.own``) and citations ``[n]`` are shown as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from deepresearch.export.figures import caption_paragraph
from deepresearch.models.document import (
    Block,
    Document,
    Figure,
    Heading,
    ItemList,
    Paragraph,
    SourceList,
    Span,
    Table,
    TableKind,
)

#: what a pipe becomes inside a table cell: a data table keeps it escaped, the lists of
#: sources and scores turn it into a slash
_PIPE: dict[TableKind, str] = {"data": "\\|", "considered": "/", "evaluation": "/"}


def to_markdown(doc: Document) -> str:
    lines: list[str] = []
    for block in doc.blocks:
        lines += _block(block)
    return "\n".join(lines).rstrip() + "\n"


def _block(block: Block) -> list[str]:
    """A block's lines, with the blank line that ends it."""
    if isinstance(block, Heading):
        return ["#" * block.level + " " + escape(block.text), ""]
    if isinstance(block, Paragraph):
        quote = "> " if block.style == "notice" else ""
        return [quote + _spans(block.spans), ""]
    if isinstance(block, ItemList):
        return [f"- {_spans(item)}" for item in block.items] + [""]
    if isinstance(block, SourceList):
        return [*_sources(block), ""]
    if isinstance(block, Figure):  # no image in a text file: its caption says what it shows
        return _block(caption_paragraph(block))
    return [*_table(block), ""]


def escape(text: str) -> str:
    """Text that cannot open a link, an image or raw HTML."""
    return text.replace("[", "\\[").replace("]", "\\]").replace("<", "&lt;")


def link_target(url: str) -> str:
    """A URL as a markdown link destination that cannot end early."""
    for char, code in (("(", "%28"), (")", "%29"), (" ", "%20"), ("<", "%3C"), (">", "%3E")):
        url = url.replace(char, code)
    return url.replace("|", "%7C")


def _spans(spans: Iterable[Span]) -> str:
    return "".join(_span(span) for span in spans)


def _span(span: Span) -> str:
    if span.cite is not None:
        return span.text
    if span.mark:  # an audit flag: its brackets are the mark's own
        return span.text.replace("<", "&lt;")
    text = span.text if span.own else escape(span.text)
    if span.italic:
        text = f"_{text}_"
    if span.bold:
        text = f"**{text}**"
    return f"[{text}]({link_target(span.url)})" if span.url else text


def _sources(block: SourceList) -> list[str]:
    """Numbered linked titles, each with its quotes under it."""
    lines = []
    for ref in block.sources:
        title = f"[{escape(ref.title)}]({link_target(ref.url)})" if ref.url else escape(ref.title)
        lines.append(f"{ref.number}. {title} — {escape(ref.site)}")
        lines += [f"   > “{escape(quote)}”" for quote in ref.quotes]
    return lines


def _table(table: Table) -> list[str]:
    pipe = _PIPE[table.kind]

    def text(value: str) -> str:
        return escape(value).replace("|", pipe)

    def cell(spans: tuple[Span, ...]) -> str:
        return "".join(_cell_span(span, text) for span in spans)

    header = table.narrow_header()
    return [
        "| " + " | ".join(map(text, header)) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(map(cell, row)) + " |" for row in table.narrow_rows()),
    ]


def _cell_span(span: Span, text: Callable[[str], str]) -> str:
    """A span in a table cell: emphasis is left out (a cell is one line of plain text),
    and an audit flag's note is put on that line."""
    if span.cite is not None:
        return span.text
    if span.code:
        return "`" + span.text.replace("`", "%60").replace("|", "%7C") + "`"
    if span.own:
        return span.text
    shown = text(" ".join(span.text.split()) if span.mark else span.text)
    return f"[{shown}]({link_target(span.url)})" if span.url else shown
