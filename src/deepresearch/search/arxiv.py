"""arXiv, the preprint server, through its query API (an Atom feed).

Wire format (arXiv API User's Manual, confirmed): ``GET {base}/api/query`` with
``search_query``, ``start=0``, ``max_results`` and ``sortBy=relevance``; no key. The reply
is an Atom 1.0 feed (namespace ``http://www.w3.org/2005/Atom``) whose ``<entry>`` elements
hold ``<id>`` (``http://arxiv.org/abs/<id>v<n>``), ``<title>``, ``<summary>`` (the
abstract), ``<published>`` (first version, ISO 8601), ``<updated>``, ``<author><name>``,
and ``<link rel="alternate">`` (the abstract page) and ``<link title="pdf">``. A bad
request comes back as a feed with one entry whose ``<id>`` starts with
``http://arxiv.org/api/errors`` and whose ``<title>`` is ``Error`` (HTTP 400, or 200).

The hit's URL is the abstract page (``https://arxiv.org/abs/<id>``), its snippet and
its text (``content``, with the title) the abstract, its date the first version's. The
abstract is what that page shows, and arxiv.org's robots.txt asks crawlers to wait 15 s
between pages, so the page is not fetched again (the PDF at ``/pdf/<id>`` is readable
when a user names it). The query is built from
the words of the question, lower-cased (so no word is one of arXiv's upper-case
``AND``/``OR``/``ANDNOT``), each searched in all fields (``all:word``) and joined with
``AND``; the user's text never forms arXiv syntax. arXiv's terms of use ask for one
request at a time, three seconds apart: the adapter paces itself (``arxiv_interval_s``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Unpack

import httpx
from lxml import etree

from deepresearch.core.text import keywords, words
from deepresearch.errors import ProviderError
from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions
from deepresearch.search.http import Target, parse_published
from deepresearch.search.markup import collapse, snippet
from deepresearch.search.paced import PacedAdapter

DEFAULT_BASE_URL = "https://export.arxiv.org"
#: arXiv's terms of use: no more than one request every three seconds
DEFAULT_INTERVAL_S = 3.0
MAX_RESULTS = 100
MAX_TERMS = 8
ATOM = "{http://www.w3.org/2005/Atom}"
_ERROR_ID = "arxiv.org/api/errors"
_NOT_WORD = re.compile(r"[^\w]|_")
_ABS_ID = re.compile(r"arxiv\.org/abs/(?P<id>[^\s?#]+?)(?:v\d+)?$")
_SWITCH = "or choose another provider with --search"
#: no DTDs, no entities, no network: an Atom feed needs none of them
_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=False
)


class ArxivSearch(PacedAdapter):
    """Search arXiv's preprints; hits are abstract pages."""

    name = "arxiv"
    supports_operators = False
    path = "/api/query"

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        min_interval_s: float = DEFAULT_INTERVAL_S,
        **options: Unpack[HttpOptions],
    ) -> None:
        target = Target(provider=self.name, label="arXiv")
        super().__init__(client, base_url, target, min_interval_s=min_interval_s, **options)

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        expression = arxiv_query(query)
        if not expression:
            return []
        response = await self._request(
            "GET",
            params={
                "search_query": expression,
                "start": 0,
                "max_results": min(limit, MAX_RESULTS),
                "sortBy": "relevance",
            },
            headers={"Accept": "application/atom+xml"},
        )
        return self._ranked(self._entries(response.content), query=query, limit=limit)

    def _entries(self, body: bytes) -> Iterator[Found]:
        try:
            feed = etree.fromstring(body, parser=_PARSER)
        except etree.XMLSyntaxError as exc:
            raise self._bad_body("is not an Atom feed") from exc
        if feed.tag != f"{ATOM}feed":
            raise self._bad_body("is not an Atom feed")
        entries = feed.findall(f"{ATOM}entry")
        for entry in entries:
            if _ERROR_ID in (entry.findtext(f"{ATOM}id") or ""):
                raise ProviderError(
                    "arXiv rejected the query (its API answered with an error entry)",
                    provider=self.name,
                    hint=f"try a simpler question, {_SWITCH}",
                )
        return (_found(entry) for entry in entries)

    def _bad_body(self, what: str) -> ProviderError:
        return ProviderError(
            f"arXiv sent a response that {what}",
            provider=self.name,
            hint=f"the service may have changed its API; try again later, {_SWITCH}",
        )


def arxiv_query(text: str) -> str:
    """The ``search_query`` for free ``text``: its keywords (at most ``MAX_TERMS``, lower
    case, letters and digits only; its plain words when it has no keywords) as
    ``all:word`` joined with ``AND``; "" when it has no words at all."""
    terms = [_NOT_WORD.sub("", term) for term in keywords(text, limit=MAX_TERMS) or words(text)]
    unique = [term for term in dict.fromkeys(terms) if term][:MAX_TERMS]
    return " AND ".join(f"all:{term}" for term in unique)


def abs_url(entry_id: str) -> str:
    """``https://arxiv.org/abs/<id>`` (the latest version) for an Atom ``<id>``; "" when
    the id is not an arXiv abstract address."""
    match = _ABS_ID.search(entry_id.strip())
    return f"https://arxiv.org/abs/{match.group('id')}" if match else ""


def _found(entry: etree._Element) -> Found:
    title = collapse(entry.findtext(f"{ATOM}title") or "")
    abstract = collapse(entry.findtext(f"{ATOM}summary") or "")
    return Found(
        url=abs_url(entry.findtext(f"{ATOM}id") or ""),
        title=title,
        snippet=snippet(abstract),
        published=parse_published(entry.findtext(f"{ATOM}published")),
        content=f"{title}\n\n{abstract}" if abstract else None,
    )
