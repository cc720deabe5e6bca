"""A document's cited sources as bibliography entries: what BibTeX (``export.bibtex``),
RIS (``export.ris``), CSL-JSON (``export.csljson``) and LaTeX's bibliography
(``export.latex``) all write. Pure.

Each entry is one of the document's ``references`` (``models.document.Document``): its
number ``[n]`` in the report, title, site, address, publication date where the page or
the search result gave one, the date the report was made (when the page was read), and
the identifiers its address carries (``export.identifiers``). The key ``ref<n>`` is the
same in every format, so a LaTeX ``\\cite{ref3}`` and a BibTeX entry name the same source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from deepresearch.export.identifiers import Identifiers, identifiers
from deepresearch.models.document import Document, Source

#: characters no bibliography reader should get (C0 controls, surrogates, non-characters)
_CONTROL = re.compile("[\x00-\x1f\x7f\ud800-\udfff\ufffe\uffff]")

_URL_ESCAPES = (
    (" ", "%20"),
    ('"', "%22"),
    ("<", "%3C"),
    (">", "%3E"),
    ("\\", "%5C"),
    ("{", "%7B"),
    ("}", "%7D"),
)


@dataclass(frozen=True)
class Entry:
    """One source as every bibliography format writes it."""

    key: str
    number: int
    title: str
    site: str
    url: str
    published: datetime | None
    accessed: datetime | None
    ids: Identifiers


def entries(doc: Document) -> list[Entry]:
    """The document's cited sources, in the order of their numbers."""
    return [entry(source, doc.created) for source in doc.references]


def entry(source: Source, accessed: datetime | None) -> Entry:
    return Entry(
        key=f"ref{source.number}",
        number=source.number,
        title=one_line(source.title) or source.url,
        site=one_line(source.domain),
        url=safe_url(source.url),
        published=source.published,
        accessed=accessed,
        ids=identifiers(source.url),
    )


def one_line(text: str) -> str:
    """``text`` on one line, without control characters."""
    return " ".join(_CONTROL.sub(" ", text).split())


def safe_url(url: str) -> str:
    """An address no format's quoting can be broken by: spaces, braces, quotes, angle
    brackets and backslashes percent-encoded (as a browser sends them)."""
    out = one_line(url)
    for char, code in _URL_ESCAPES:
        out = out.replace(char, code)
    return out
