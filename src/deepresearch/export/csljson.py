"""A document's cited sources as CSL-JSON (``export.bibliography``'s entries), the input
of citeproc processors (Zotero, Pandoc, citeproc-js). Pure.

Each source is a ``webpage`` item (an arXiv preprint an ``article`` numbered
``arXiv:<id>`` by arXiv, as Zotero exports one): ``id`` the key ``ref<n>``, ``title``,
``container-title`` the site, ``URL``, ``issued`` where the date is known, ``accessed``
the date the report was made, and ``DOI``, ``PMID``, ``PMCID`` where the address
carries them.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from deepresearch.export.bibliography import Entry, entries
from deepresearch.models.document import Document


def to_csljson(doc: Document) -> str:
    """The document's references as a CSL-JSON array (``[]`` when it cites nothing)."""
    items = [_item(entry) for entry in entries(doc)]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def _item(entry: Entry) -> dict[str, Any]:
    item: dict[str, Any] = {"id": entry.key, "type": "webpage", "title": entry.title}
    if entry.site:
        item["container-title"] = entry.site
    item["URL"] = entry.url
    if entry.published is not None:
        item["issued"] = _date(entry.published)
    if entry.accessed is not None:
        item["accessed"] = _date(entry.accessed)
    ids = entry.ids
    if ids.arxiv:
        item |= {"type": "article", "publisher": "arXiv", "number": f"arXiv:{ids.arxiv}"}
    for name, value in (("DOI", ids.doi), ("PMID", ids.pmid), ("PMCID", ids.pmcid)):
        if value:
            item[name] = value
    item["note"] = f"Source [{entry.number}] of the report"
    return item


def _date(when: datetime) -> dict[str, list[list[int]]]:
    return {"date-parts": [[when.year, when.month, when.day]]}
