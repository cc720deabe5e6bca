"""The scholarly identifiers a source's address carries: a DOI (``doi.org/…``, or a
publisher's ``/doi/…`` path), an arXiv id (``arxiv.org/abs/…``, ``/pdf/…``), a PubMed id
(``pubmed.ncbi.nlm.nih.gov/…``) and a PubMed Central id (``…/pmc/articles/PMC…``). Pure.

Only what the address says is taken: no page is read and no registry asked, so the
bibliography formats (``export.bibliography``) give the same entries for the same report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

#: a DOI: the directory indicator 10., a registrant code, a slash and a suffix
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
#: a publisher's landing or full-text page under a /doi/ path (ACM, Wiley, Taylor &
#: Francis, SAGE, …), with the view word some of them put first
_DOI_PATH = re.compile(r"/doi/(?:(?:abs|full|pdf|epdf|book|fulltext)/)?(10\.\d{4,9}/[^?#]+)")
_ARXIV_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_ARXIV_OLD = r"[a-z][a-z.-]*/\d{7}(?:v\d+)?"
_ARXIV = re.compile(rf"^/(?:abs|pdf|html)/({_ARXIV_NEW}|{_ARXIV_OLD})(?:\.pdf)?/?$", re.I)
_PMID = re.compile(r"^/(?:pubmed/)?(\d{1,9})/?$")
_PMCID = re.compile(r"/pmc/articles/(PMC\d+)/?", re.I)
_ARXIV_HOSTS = {"arxiv.org", "export.arxiv.org"}
_DOI_HOSTS = {"doi.org", "dx.doi.org"}


@dataclass(frozen=True)
class Identifiers:
    """What a source's address identifies it as, where it says so (else empty)."""

    doi: str = ""
    arxiv: str = ""
    pmid: str = ""
    pmcid: str = ""


def identifiers(url: str) -> Identifiers:
    """The identifiers ``url`` carries."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # not an address at all (an unbalanced IPv6 bracket)
        return Identifiers()
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = unquote(parts.path)
    return Identifiers(
        doi=doi_of(host, path),
        arxiv=arxiv_of(host, path),
        pmid=pmid_of(host, path),
        pmcid=pmcid_of(host, path),
    )


def doi_of(host: str, path: str) -> str:
    """The DOI of a resolver address (``doi.org/10.…``) or a publisher's ``/doi/10.…``
    page; DOIs are case-insensitive, so the one the address spells is kept."""
    if host in _DOI_HOSTS:
        found = path.lstrip("/")
        return found if _DOI.match(found) else ""
    match = _DOI_PATH.search(path)
    return match.group(1).rstrip("/") if match else ""


def arxiv_of(host: str, path: str) -> str:
    """The arXiv id (with its version, when the address names one) of an abstract, PDF
    or HTML page on arxiv.org."""
    if host not in _ARXIV_HOSTS:
        return ""
    match = _ARXIV.match(path)
    return match.group(1) if match else ""


def pmid_of(host: str, path: str) -> str:
    """The PubMed id of a PubMed page (the current site or the old ``/pubmed/`` path)."""
    if host == "pubmed.ncbi.nlm.nih.gov" or (
        host == "ncbi.nlm.nih.gov" and path.startswith("/pubmed/")
    ):
        match = _PMID.match(path)
    else:
        return ""
    return match.group(1) if match else ""


def pmcid_of(host: str, path: str) -> str:
    """The PubMed Central id of a PMC article page."""
    if host == "pmc.ncbi.nlm.nih.gov":
        match = re.match(r"^/articles/(PMC\d+)/?", path, re.I)
    elif host == "ncbi.nlm.nih.gov":
        match = _PMCID.match(path)
    else:
        return ""
    return match.group(1).upper() if match else ""
