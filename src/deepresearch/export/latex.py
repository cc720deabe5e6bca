"""A ``models.document.Document`` as a LaTeX source file with its bibliography. Pure.

One self-contained ``.tex`` that compiles with pdflatex, xelatex or lualatex and needs
only packages every TeX distribution has (inputenc/fontspec, textcomp, longtable, array,
hyperref). Headings are unnumbered sections, lists ``itemize``/``enumerate``, quotes
``quote``, tables ``longtable`` (the columns a narrow page shows, as in the PDF), links
``\\href``. The source list is a ``thebibliography`` whose keys are BibTeX's
(``ref<n>``, ``export.bibliography``) and whose labels are the report's numbers, so a
citation ``[n]`` is ``\\cite{ref<n>}`` and the ``.bib`` export names the same entries.

Text is kept as UTF-8 with LaTeX's special characters escaped, so no page's or model's
words can become a command. pdfTeX has glyphs for Latin scripts only: there a character
LaTeX has no definition for is shown as "?" instead of stopping the build (xelatex or
lualatex with a font that covers it shows it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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
)

_ESCAPES = str.maketrans(
    {
        "\\": "\\textbackslash{}",
        "{": "\\{",
        "}": "\\}",
        "&": "\\&",
        "%": "\\%",
        "$": "\\$",
        "#": "\\#",
        "_": "\\_",
        "~": "\\textasciitilde{}",
        "^": "\\textasciicircum{}",
        "<": "\\textless{}",
        ">": "\\textgreater{}",
        "|": "\\textbar{}",
        # an optional argument cannot open here (after \item, \\ or \bibitem)
        "[": "{[}",
        "]": "{]}",
        # symbols the report's own words use that LaTeX's text fonts lack
        "≥": "\\ensuremath{\\geq}",
        "≤": "\\ensuremath{\\leq}",
        "→": "\\ensuremath{\\rightarrow}",
        "×": "\\ensuremath{\\times}",
        "•": "\\textbullet{}",
        "…": "\\ldots{}",
        "⚠": "!",
        "\u00ad": "\\-",
        "\u00a0": "~",
        "\t": " ",
        "\n": " ",
        "\r": " ",
        **dict.fromkeys("\u200b\u200c\u200d\u2060\ufeff", ""),
        **dict.fromkeys([chr(c) for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20))], ""),
    }
)
#: what TeX would read as a ligature in text: "--" (a dash), "?`" and "!`" (inverted marks)
_LIGATURE = re.compile(r"(-(?=-)|[?!](?=`))")
_SURROGATE = re.compile("[\ud800-\udfff\ufffe\uffff]")
#: what an address needs inside \href and \nolinkurl (hyperref reads the rest as is)
_URL_ESCAPES = str.maketrans(
    {
        "\\": "%5C",
        "{": "%7B",
        "}": "%7D",
        "%": "\\%",
        "#": "\\#",
        " ": "%20",
        "^": "%5E",
        "\n": "",
        "\r": "",
    }
)

PREAMBLE = r"""\documentclass[11pt,a4paper]{article}
% xelatex and lualatex read UTF-8 with fontspec; pdflatex with inputenc, showing a
% character it has no definition for as "?" rather than stopping
\ifdefined\XeTeXrevision\def\unicodeengine{}\fi
\ifdefined\directlua\def\unicodeengine{}\fi
\ifdefined\unicodeengine
  \usepackage{fontspec}
\else
  \usepackage[utf8]{inputenc}
  \usepackage{textcomp}
  \makeatletter\def\UTFviii@undefined@err#1{?}\makeatother
\fi
\usepackage{array}
\usepackage{longtable}
\usepackage[colorlinks=true,linkcolor=blue,urlcolor=blue,citecolor=blue]{hyperref}
"""


def to_latex(doc: Document) -> str:
    """The document as a ``.tex`` file."""
    cited = {
        f"ref{ref.number}"
        for block in doc.blocks
        if isinstance(block, SourceList)
        for ref in block.sources
    }
    title = escape(doc.title)
    date = doc.created.date().isoformat() if doc.created else ""
    out = [
        PREAMBLE,
        "\\hypersetup{pdftitle={" + title + "},pdfsubject={" + escape(doc.subject) + "},"
        "pdfcreator={deepresearch}}",
        "\\title{" + title + "}",
        "\\author{}",
        "\\date{" + date + "}",
        "\\begin{document}",
        "\\maketitle",
        "",
    ]
    blocks = list(doc.blocks)
    if blocks and isinstance(blocks[0], Heading) and blocks[0].level == 1:
        blocks = blocks[1:]  # the title, already set by \maketitle
    for index, block in enumerate(blocks):
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        if isinstance(block, Heading) and isinstance(following, SourceList):
            # the bibliography sets its own heading: give it this one's words
            out.append("\\renewcommand{\\refname}{" + escape(block.text) + "}")
            continue
        out += _block(block, cited)
    out += ["\\end{document}", ""]
    return "\n".join(out)


def escape(text: str) -> str:
    """``text`` as LaTeX text: special characters escaped, on one line."""
    text = _SURROGATE.sub("", text).translate(_ESCAPES)
    return _LIGATURE.sub(r"\1{}", text)


def url(address: str) -> str:
    """An address as ``\\href`` and ``\\nolinkurl`` take it."""
    return _SURROGATE.sub("", address).translate(_URL_ESCAPES)


def _block(block: Block, cited: set[str]) -> list[str]:
    """A block's lines, with the blank line that ends it."""
    if isinstance(block, Heading):
        command = {1: "section", 2: "section", 3: "subsection"}.get(block.level, "subsubsection")
        return [f"\\{command}*{{{escape(block.text)}}}", ""]
    if isinstance(block, Paragraph):
        return [*_paragraph(block, cited), ""]
    if isinstance(block, ItemList):
        if not block.items:
            return []
        env = "enumerate" if block.ordered else "itemize"
        items = [f"  \\item{{}} {spans(item, cited)}" for item in block.items]
        return [f"\\begin{{{env}}}", *items, f"\\end{{{env}}}", ""]
    if isinstance(block, SourceList):
        return [*_bibliography(block), ""]
    if isinstance(block, Figure):  # a .tex file has no image beside it: its caption
        return _block(caption_paragraph(block), cited)
    return [*_table(block, cited), ""]


def _paragraph(block: Paragraph, cited: set[str]) -> list[str]:
    text = spans(block.spans, cited)
    if block.style == "quote":
        return ["\\begin{quote}", text, "\\end{quote}"]
    if block.style == "notice":
        return ["\\begin{quote}", "\\itshape " + text, "\\end{quote}"]
    if block.style == "note":
        return ["{\\small " + text + "\\par}"]
    return [text]


def spans(items: Iterable[Span], cited: set[str]) -> str:
    return "".join(_span(span, cited) for span in items)


def _span(span: Span, cited: set[str]) -> str:
    if span.cite is not None and f"ref{span.cite}" in cited:
        return f"\\cite{{ref{span.cite}}}"
    if span.code:
        return f"\\nolinkurl{{{url(span.text)}}}"
    text = escape(span.text)
    if span.mark:
        text = f"\\textbf{{\\textsl{{{text}}}}}"
    if span.italic:
        text = f"\\emph{{{text}}}"
    if span.bold:
        text = f"\\textbf{{{text}}}"
    return f"\\href{{{url(span.url)}}}{{{text}}}" if span.url else text


def _bibliography(block: SourceList) -> list[str]:
    """The numbered sources, each with its linked title, site and quotes."""
    widest = str(max((ref.number for ref in block.sources), default=9))
    out = [f"\\begin{{thebibliography}}{{{widest}}}"]
    for ref in block.sources:
        site = f" --- {escape(ref.domain)}" if ref.domain else ""
        out.append(
            f"\\bibitem[{ref.number}]{{ref{ref.number}}} "
            f"\\href{{{url(ref.url)}}}{{{escape(ref.title)}}}{site}"
        )
        out += [f"  \\par{{\\small\\itshape ``{escape(quote)}''}}" for quote in ref.quotes]
    return [*out, "\\end{thebibliography}"]


def _table(block: Table, cited: set[str]) -> list[str]:
    """A longtable of the columns a narrow page shows, its header repeated on each page."""
    header = block.narrow_header()
    count = max(1, len(header))
    shares = block.widths if len(block.widths) == count else (1.0 / count,) * count
    columns = "".join(
        f">{{\\raggedright\\arraybackslash}}p{{\\dimexpr {share:.3f}\\linewidth-2\\tabcolsep\\relax}}"
        for share in shares
    )
    head = " & ".join(f"\\textbf{{{escape(name)}}}" for name in header)
    rows = [" & ".join(spans(cell, cited) for cell in row) + " \\\\" for row in block.narrow_rows()]
    return [
        "\\begingroup\\footnotesize",
        f"\\begin{{longtable}}{{{columns}}}",
        "\\hline",
        head + " \\\\",
        "\\hline",
        "\\endhead",
        *rows,
        "\\hline",
        "\\end{longtable}",
        "\\endgroup",
    ]
