"""A page-neutral ``models.document.Document`` as one HTML page. Pure.

Whoever built the document made its text safe; here everything is also HTML-escaped.
A page reflows text, so a span's ``full`` text is shown where it has one. A citation
``[n]`` jumps to its source in the list and shows the quote it stands for; a paragraph's
role is its class. The sources list, the sources considered (every column) and the
evaluation are written each on one line with their heading, as a reader of the page
source finds them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from deepresearch.export.figures import data_uri, pixels
from deepresearch.models.document import (
    Block,
    Document,
    Figure,
    Heading,
    ItemList,
    Paragraph,
    Source,
    SourceList,
    Span,
    Table,
    TableKind,
)

#: how each kind of table opens and closes, and its header cells
_TABLE_OPEN: dict[TableKind, str] = {
    "data": '<table class="report-table">',
    "considered": '<div class="considered"><table>',
    "evaluation": "<table>",
}
_TABLE_CLOSE: dict[TableKind, str] = {
    "data": "</table>",
    "considered": "</table></div>",
    "evaluation": "</table>",
}
_TH: dict[TableKind, str] = {"data": '<th scope="col">', "considered": "<th>", "evaluation": "<th>"}
#: a column's cells' class, by table kind and column name
_TD_CLASS = {("considered", "found by"): "providers"}


def to_html(doc: Document) -> str:
    first = doc.blocks[0] if doc.blocks else None
    title = _heading_text(first) if isinstance(first, Heading) else doc.title
    return _PAGE.format(title=escape(title), body="\n".join(_body(doc.blocks)))


def _body(blocks: Sequence[Block]) -> list[str]:
    lines: list[str] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if isinstance(block, Heading):
            used, written = _section(block, blocks[i + 1 :])
            lines += written
            i += 1 + used
        else:
            lines += _block(block)
            i += 1
    return lines


def _section(heading: Heading, rest: Sequence[Block]) -> tuple[int, list[str]]:
    """A heading with what it opens on its line: the blocks after it used, and the lines."""
    head = f"<h{heading.level}>{escape(_heading_text(heading))}</h{heading.level}>"
    after = rest[0] if rest else None
    if isinstance(after, SourceList):
        return 1, [head + '<ol class="sources">', *map(_source, after.sources), "</ol>"]
    if isinstance(after, ItemList) and after.role == "":
        return 1, [head + "<ul>", *(f"<li>{_spans(item)}</li>" for item in after.items), "</ul>"]
    if isinstance(after, ItemList) and after.role == "figures":
        used = _run(rest, lambda b: isinstance(b, (ItemList, Table)) or _role(b, "judge"))
        inner = "".join(_inline(block) for block in rest[:used])
        return used, [f'<section class="evaluation">{head}{inner}</section>']
    if _role(after, "found-by") or (isinstance(after, Table) and after.kind == "considered"):
        used = _run(rest, lambda b: _role(b, "found-by") or isinstance(b, Table))
        return used, [head + "".join(_inline(block) for block in rest[:used])]
    return 0, [head]


def _run(blocks: Sequence[Block], belongs: Callable[[Block], bool]) -> int:
    """How many of ``blocks`` from the first belong to a section (up to one table)."""
    count = 0
    for block in blocks:
        if not belongs(block):
            break
        count += 1
        if isinstance(block, Table):
            break
    return count


def _role(block: Block | None, role: str) -> bool:
    return isinstance(block, Paragraph) and block.role == role


def _inline(block: Block) -> str:
    """A block within a section's one line."""
    if isinstance(block, ItemList):
        return "<ul>" + "".join(f"<li>{_spans(item)}</li>" for item in block.items) + "</ul>"
    return "".join(_block(block))


def _block(block: Block) -> list[str]:
    if isinstance(block, Heading):
        return _section(block, ())[1]
    if isinstance(block, Paragraph):
        role = block.role or ("notice" if block.style == "notice" else "")
        opening = f'<p class="{role}">' if role else "<p>"
        return [opening + _spans(block.spans, plain=bool(block.role)) + "</p>"]
    if isinstance(block, ItemList):
        tag = "ol" if block.ordered else "ul"
        opening = f'<{tag} class="report-list">' if block.role == "findings" else f"<{tag}>"
        return [opening, *(f"<li>{_spans(item)}</li>" for item in block.items), f"</{tag}>"]
    if isinstance(block, SourceList):
        return ['<ol class="sources">', *map(_source, block.sources), "</ol>"]
    if isinstance(block, Figure):
        return [_figure(block)]
    return [_table(block)]


def _figure(block: Figure) -> str:
    """The image embedded (a ``data:`` address: the page asks nothing of anyone), its
    caption under it; sized here, so the page's style sheet is the same with or without."""
    wide, high = pixels(block)
    size = f' width="{wide}" height="{high}"' if wide else ""
    style = f"max-width:{round(block.width * 100)}%;height:auto"
    return (
        f'<figure class="chart"><img src="{data_uri(block)}" alt="{escape(block.alt)}"{size}'
        f' style="{style}"><figcaption>{_spans(block.caption)}</figcaption></figure>'
    )


def _heading_text(heading: Heading) -> str:
    return heading.text if heading.full is None else heading.full


def _spans(spans: Sequence[Span], *, plain: bool = False) -> str:
    """Spans as HTML; a citation follows its word without a space; ``plain`` leaves out
    emphasis (a paragraph with a role is styled by its class)."""
    out = []
    for i, span in enumerate(spans):
        following = spans[i + 1] if i + 1 < len(spans) else None
        if following is not None and following.cite is not None and not span.text.strip():
            continue
        out.append(_span(span, plain=plain))
    return "".join(out)


def _span(span: Span, *, plain: bool = False) -> str:
    if span.cite is not None:
        return (
            f'<a class="cite" href="#src-{span.cite}" title="{escape(span.note)}">'
            f"{escape(span.text)}</a>"
        )
    if span.mark:
        return f'<mark class="audit">{escape(span.text)}</mark>'
    text = escape(span.text if span.full is None else span.full)
    if span.code:
        return f'<code class="url">{text}</code>'
    if span.url:
        return f'<a href="{escape(span.url)}" rel="noopener noreferrer">{text}</a>'
    if not plain and span.italic:
        text = f"<em>{text}</em>"
    if not plain and span.bold:
        text = f"<strong>{text}</strong>"
    return text


def _source(ref: Source) -> str:
    quotes = "".join(f"<blockquote>{escape(quote)}</blockquote>" for quote in ref.quotes)
    title = escape(ref.title)
    if ref.url:
        title = f'<a href="{escape(ref.url)}" rel="noopener noreferrer">{title}</a>'
    return (
        f'<li id="src-{ref.number}">{title} '
        f'<span class="domain">{escape(ref.site)}</span>{quotes}</li>'
    )


def _table(table: Table) -> str:
    th = _TH[table.kind]
    head = "".join(f"{th}{escape(name)}</th>" for name in table.header)
    rows = []
    for row in table.rows:
        cells = []
        for name, cell in zip(table.header, row, strict=True):
            css = _TD_CLASS.get((table.kind, name))
            opening = f'<td class="{css}">' if css else "<td>"
            # the evaluation's scores are shown without emphasis (the considered table's
            # final score is strong)
            cells.append(opening + _spans(cell, plain=table.kind == "evaluation") + "</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f"{_TABLE_OPEN[table.kind]}<thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody>{_TABLE_CLOSE[table.kind]}"
    )


_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font: 16px/1.6 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }}
.notice {{ background: #fff4d6; border-left: 4px solid #c98a00; padding: .5rem 1rem; }}
a.cite {{ text-decoration: none; font-size: .8em; vertical-align: super; color: #0645ad; }}
blockquote {{ margin: .25rem 0 .5rem 1rem; color: #444; border-left: 3px solid #ccc; padding-left: .75rem; }}
.domain, .usage {{ color: #555; font-size: .9em; }}
.considered {{ overflow-x: auto; }}
.considered table {{ border-collapse: collapse; font-size: .8em; }}
.considered th, .considered td {{ border-bottom: 1px solid #ddd; padding: .2rem .4rem; text-align: left; }}
.report-table {{ border-collapse: collapse; margin: .5rem 0 1rem; }}
.report-table th, .report-table td {{ border-bottom: 1px solid #ddd; padding: .2rem .5rem; text-align: left; vertical-align: top; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""
