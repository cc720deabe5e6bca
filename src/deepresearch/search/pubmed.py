"""PubMed, the biomedical literature index, through NCBI's E-utilities.

Wire format (NCBI's "Entrez Programming Utilities Help", confirmed): two calls.

1. ``GET {base}/esearch.fcgi`` with ``db=pubmed``, ``term=<query>``, ``retmax``,
   ``sort=relevance`` and ``retmode=json``: ``esearchresult.idlist`` holds the PMIDs, best
   first (a bad term gives ``esearchresult.ERROR``).
2. ``GET {base}/esummary.fcgi`` with ``db=pubmed``, ``id=<pmid,pmid,...>`` and
   ``retmode=json``: ``result.uids`` lists the PMIDs and ``result[<pmid>]`` is each
   summary, with ``title``, ``fulljournalname``/``source``, ``pubdate`` ("2023 Jan 5"),
   ``sortpubdate`` ("2023/01/05 00:00") and ``authors`` (``[{"name": ...}]``); a PMID
   without a summary has ``error`` instead.

Every call carries ``tool=deepresearch`` and, when set, ``email`` (``ncbi_email``) and
``api_key`` (``ncbi_api_key``), as NCBI asks. NCBI allows 3 requests a second without a
key and 10 with one; the adapter paces itself to that. Over the limit NCBI answers 429
with ``{"error": "API rate limit exceeded", ...}``; a refused key is a 4xx whose body says
``API key invalid``. The hit's URL is the article's PubMed page
(``https://pubmed.ncbi.nlm.nih.gov/<pmid>/``, which carries the abstract), its snippet the
journal, date and authors. PubMed's own query syntax (``[tiab]``, ``AND``) is not
``site:``-style, so operators are off.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Unpack

import httpx
from pydantic import SecretStr

from deepresearch.errors import ProviderError
from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions
from deepresearch.search.http import Target, parse_published, reveal, text_field
from deepresearch.search.markup import collapse
from deepresearch.search.paced import PacedAdapter

DEFAULT_BASE_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
TOOL = "deepresearch"
MAX_RESULTS = 100
#: NCBI: at most 3 requests a second without an API key, 10 with one
INTERVAL_S = 1 / 3
INTERVAL_WITH_KEY_S = 1 / 10
PAGE = "https://pubmed.ncbi.nlm.nih.gov/{pmid}/"
SHOWN_AUTHORS = 3
_SWITCH = "or choose another provider with --search"


class PubmedSearch(PacedAdapter):
    """Search PubMed; hits are the articles' PubMed pages."""

    name = "pubmed"
    supports_operators = False
    path = "/esearch.fcgi"

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        api_key: SecretStr | str | None = None,
        email: str | None = None,
        base_url: str = DEFAULT_BASE_URL,
        min_interval_s: float | None = None,
        **options: Unpack[HttpOptions],
    ) -> None:
        target = Target(
            provider=self.name,
            label="PubMed (NCBI E-utilities)",
            auth_hint="check DEEPRESEARCH_NCBI_API_KEY: the key may be wrong (PubMed also "
            "works without one, at 3 requests a second)",
            auth_markers=("API key invalid", "Invalid API key"),
        )
        key = reveal(api_key).strip() if api_key is not None else ""
        if min_interval_s is None:
            min_interval_s = INTERVAL_WITH_KEY_S if key else INTERVAL_S
        super().__init__(
            client, base_url, target, min_interval_s=min_interval_s, max_concurrent=3, **options
        )
        self._summary_endpoint = self._base_url + "/esummary.fcgi"
        self._key = SecretStr(key) if key else None
        self._email = (email or "").strip()

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        found = await self._request_json(
            "GET",
            params={
                **self._common(),
                "term": query,
                "retmax": min(limit, MAX_RESULTS),
                "sort": "relevance",
            },
        )
        result = found.get("esearchresult")
        result = result if isinstance(result, dict) else {}
        if found.get("error") or result.get("ERROR"):
            raise ProviderError(
                "PubMed rejected the search (its reply reports an error)",
                provider=self.name,
                hint=f"try a simpler question, {_SWITCH}",
            )
        pmids = [pmid for pmid in result.get("idlist") or [] if _is_pmid(pmid)][:limit]
        if not pmids:
            return []
        summaries = await self._json_at(
            self._summary_endpoint, "GET", params={**self._common(), "id": ",".join(pmids)}
        )
        if summaries.get("error"):
            raise ProviderError(
                "PubMed could not summarize the articles it found",
                provider=self.name,
                hint=f"try again later, {_SWITCH}",
            )
        docs = summaries.get("result")
        docs = docs if isinstance(docs, dict) else {}
        return self._ranked(_found(pmids, docs), query=query, limit=limit)

    def _common(self) -> dict[str, str]:
        params = {"db": "pubmed", "retmode": "json", "tool": TOOL}
        if self._email:
            params["email"] = self._email
        if self._key:
            params["api_key"] = reveal(self._key)
        return params


def _is_pmid(value: object) -> bool:
    return isinstance(value, str) and value.isdigit()


def _found(pmids: list[str], docs: Mapping[str, Any]) -> Iterator[Found]:
    """The summaries in esearch's (relevance) order; PMIDs without a summary are skipped."""
    for pmid in pmids:
        doc = docs.get(pmid)
        if not isinstance(doc, dict) or doc.get("error"):
            continue
        yield Found(
            url=PAGE.format(pmid=pmid),
            title=collapse(text_field(doc, "title")),
            snippet=_byline(doc),
            published=parse_published(text_field(doc, "sortpubdate")[:10]),
        )


def _byline(doc: Mapping[str, Any]) -> str:
    """ "Journal, 2023 Jan 5. Smith J, Doe A, Roe B et al." from a summary."""
    journal = text_field(doc, "fulljournalname", "source")
    date = text_field(doc, "pubdate")
    names = [
        text_field(author, "name")
        for author in doc.get("authors") or []
        if isinstance(author, dict) and text_field(author, "name")
    ]
    authors = ", ".join(names[:SHOWN_AUTHORS]) + (" et al." if len(names) > SHOWN_AUTHORS else "")
    head = ", ".join(part for part in (journal, date) if part)
    return collapse(". ".join(part for part in (head, authors) if part))
