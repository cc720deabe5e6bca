"""A document's cited sources as BibTeX (``export.bibliography``'s entries). Pure.

Every source is a ``@misc`` entry (a web page, a preprint or a paper alike: the report
knows its title, site, address and date, not its journal or authors), with the fields
both BibTeX and biblatex read: ``title``, ``howpublished`` (the site), ``year`` and
``date``, ``url`` and ``urldate``, ``doi``, arXiv's ``eprint``/``archiveprefix``, and
``pmid``/``pmcid`` (read by reference managers). Text is UTF-8 with LaTeX's special
characters escaped; the title is braced twice so styles keep its capitals.
"""

from __future__ import annotations

from deepresearch.export.bibliography import Entry, entries
from deepresearch.models.document import Document

#: LaTeX's special characters in a field's text; braces by name, since BibTeX counts
#: even an escaped brace (a title's unmatched one would end its field)
_SPECIAL = str.maketrans(
    {
        "\\": "\\textbackslash{}",
        "{": "\\textbraceleft{}",
        "}": "\\textbraceright{}",
        "&": "\\&",
        "%": "\\%",
        "$": "\\$",
        "#": "\\#",
        "_": "\\_",
        "~": "\\textasciitilde{}",
        "^": "\\textasciicircum{}",
    }
)


def to_bibtex(doc: Document) -> str:
    """The document's references as a ``.bib`` file (empty when it cites nothing)."""
    header = f"% Sources cited by: {_comment(doc.title)}\n% Written by deepresearch.\n"
    return header + "".join("\n" + _entry(item) for item in entries(doc))


def _entry(item: Entry) -> str:
    fields: list[tuple[str, str]] = [("title", "{" + escape(item.title) + "}")]
    if item.site:
        fields.append(("howpublished", escape(item.site)))
    if item.published is not None:
        fields.append(("year", str(item.published.year)))
        fields.append(("date", item.published.date().isoformat()))
    fields.append(("url", item.url))
    if item.accessed is not None:
        fields.append(("urldate", item.accessed.date().isoformat()))
    ids = item.ids
    if ids.doi:
        fields.append(("doi", ids.doi))
    if ids.arxiv:
        fields += [("eprint", ids.arxiv), ("archiveprefix", "arXiv")]
    if ids.pmid:
        fields.append(("pmid", ids.pmid))
    if ids.pmcid:
        fields.append(("pmcid", ids.pmcid))
    fields.append(("note", f"Source [{item.number}] of the report"))
    body = ",\n".join(f"  {name} = {{{_verbatim(value)}}}" for name, value in fields)
    return f"@misc{{{item.key},\n{body}\n}}\n"


def escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped: its braces are all balanced."""
    return text.translate(_SPECIAL)


def _verbatim(value: str) -> str:
    """A field value whose braces cannot end the field: escaped text has none unmatched;
    an address or an identifier (kept as it is, since styles print them verbatim) has
    its braces percent-encoded by ``bibliography.safe_url``, and any left are encoded."""
    depth = 0
    for char in value:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            break
    if depth == 0:
        return value
    return value.replace("{", "%7B").replace("}", "%7D")


def _comment(text: str) -> str:
    """A title in a comment line: an ``@`` there would start an entry for some readers."""
    return " ".join(text.replace("@", " ").split())
