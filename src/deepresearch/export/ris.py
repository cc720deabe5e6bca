"""A document's cited sources as RIS (``export.bibliography``'s entries), the tagged
format reference managers (Zotero, EndNote, Mendeley) import. Pure.

Each source is an ``ELEC`` record (a web page): ``ID`` the key ``ref<n>``, ``TI`` its
title, ``T2`` the site, ``PY``/``DA`` the publication date where known, ``UR`` the
address, ``Y2`` the date the report was made, ``DO`` a DOI, ``AN`` a PubMed id (with
``DB`` PubMed, as PubMed's own export has it), and a note with an arXiv or PMC id and
the source's number in the report. One line a tag: values are kept on one line.
"""

from __future__ import annotations

from datetime import datetime

from deepresearch.export.bibliography import Entry, entries
from deepresearch.models.document import Document


def to_ris(doc: Document) -> str:
    """The document's references as a ``.ris`` file (empty when it cites nothing)."""
    return "".join(_record(item) for item in entries(doc))


def _record(item: Entry) -> str:
    tags: list[tuple[str, str]] = [("TY", "ELEC"), ("ID", item.key), ("TI", item.title)]
    if item.site:
        tags.append(("T2", item.site))
    if item.published is not None:
        tags += [("PY", str(item.published.year)), ("DA", _date(item.published))]
    tags.append(("UR", item.url))
    if item.accessed is not None:
        tags.append(("Y2", _date(item.accessed)))
    ids = item.ids
    if ids.doi:
        tags.append(("DO", ids.doi))
    if ids.pmid:
        tags += [("AN", ids.pmid), ("DB", "PubMed")]
    if ids.arxiv:
        tags.append(("N1", f"arXiv:{ids.arxiv}"))
    if ids.pmcid:
        tags.append(("N1", f"PMCID: {ids.pmcid}"))
    tags += [("N1", f"Source [{item.number}] of the report"), ("ER", "")]
    return "".join(f"{tag}  - {value}\n" for tag, value in tags) + "\n"


def _date(when: datetime) -> str:
    """RIS's date form, ``YYYY/MM/DD``."""
    return f"{when.year:04d}/{when.month:02d}/{when.day:02d}"
