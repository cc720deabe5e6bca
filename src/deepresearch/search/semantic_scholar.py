"""Semantic Scholar, a scholarly index across every field, through its Academic Graph API.

Wire format (api.semanticscholar.org/api-docs/graph, "paper relevance search", confirmed):
``GET {base}/graph/v1/paper/search`` with ``query``, ``limit`` (at most 100) and
``fields`` (a comma-separated list); the key, optional, travels in the ``x-api-key``
header. The reply is ``{"total", "offset", "next", "data": [...]}``; each paper has
``paperId``, ``url`` (its Semantic Scholar page), ``title``, ``abstract`` (may be null),
``publicationDate`` ("2020-05-01" or null), ``year``, ``venue``, ``authors``
(``[{"name"}]``) and ``externalIds`` (``{"ArXiv", "DOI", "PubMed", ...}``). Without a key
requests share a public pool that often answers 429; a key allows one request a second,
and the adapter paces itself to that. A refused key gets 403 (or 401).

The hit's URL is the arXiv abstract page when the paper is on arXiv (a page the fetcher
reads, and the same URL the arXiv provider gives), else its Semantic Scholar page. The
abstract is the snippet and, with the title, the hit's text (``content``), so the paper
is not fetched again. Semantic Scholar's search takes plain words only: operators are off.
"""

from __future__ import annotations

from typing import Any, Unpack

import httpx
from pydantic import SecretStr

from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions
from deepresearch.search.http import Target, items, parse_published, reveal, text_field
from deepresearch.search.markup import collapse, snippet
from deepresearch.search.paced import PacedAdapter

DEFAULT_BASE_URL = "https://api.semanticscholar.org"
MAX_RESULTS = 100
#: Semantic Scholar: one request a second for a key; the public pool is shared by everyone
DEFAULT_INTERVAL_S = 1.0
FIELDS = "title,url,abstract,year,publicationDate,venue,authors,externalIds"


class SemanticScholarSearch(PacedAdapter):
    """Search Semantic Scholar's papers; hits carry the abstract as their text."""

    name = "semantic_scholar"
    supports_operators = False
    path = "/graph/v1/paper/search"

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        api_key: SecretStr | str | None = None,
        base_url: str = DEFAULT_BASE_URL,
        min_interval_s: float = DEFAULT_INTERVAL_S,
        **options: Unpack[HttpOptions],
    ) -> None:
        target = Target(
            provider=self.name,
            label="Semantic Scholar",
            auth_hint="check DEEPRESEARCH_SEMANTIC_SCHOLAR_API_KEY: the key may be wrong "
            "(Semantic Scholar also works without one, more slowly)",
        )
        super().__init__(client, base_url, target, min_interval_s=min_interval_s, **options)
        key = reveal(api_key).strip() if api_key is not None else ""
        self._key = SecretStr(key) if key else None

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        headers = {"Accept": "application/json"}
        if self._key is not None:
            headers["x-api-key"] = reveal(self._key)
        data = await self._request_json(
            "GET",
            params={"query": query, "limit": min(limit, MAX_RESULTS), "fields": FIELDS},
            headers=headers,
        )
        return self._ranked(map(_found, items(data, "data")), query=query, limit=limit)


def _found(paper: dict[str, Any]) -> Found:
    title = collapse(text_field(paper, "title"))
    abstract = collapse(text_field(paper, "abstract"))
    ids = paper.get("externalIds")
    arxiv_id = text_field(ids, "ArXiv") if isinstance(ids, dict) else ""
    url = f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else text_field(paper, "url")
    return Found(
        url=url,
        title=title,
        snippet=snippet(abstract) if abstract else _byline(paper),
        published=parse_published(paper.get("publicationDate")),
        content=f"{title}\n\n{abstract}" if abstract else None,
    )


def _byline(paper: dict[str, Any]) -> str:
    """ "Venue, 2020. Author A, Author B" for a paper without an abstract."""
    names = [
        text_field(author, "name")
        for author in paper.get("authors") or []
        if isinstance(author, dict) and text_field(author, "name")
    ]
    year = paper.get("year")
    head = ", ".join(
        part
        for part in (text_field(paper, "venue"), str(year) if isinstance(year, int) else "")
        if part
    )
    return ". ".join(part for part in (head, ", ".join(names[:3])) if part)
