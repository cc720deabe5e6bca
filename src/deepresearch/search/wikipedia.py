"""Wikipedia (or another MediaWiki site laid out like it) through the Action API's search.

Wire format (mediawiki.org, API:Search and API:Errors and warnings, confirmed): ``GET
{site}/w/api.php`` with ``action=query``, ``list=search``, ``srsearch=<query>``,
``srlimit`` (1-500), ``srprop=snippet``, ``format=json`` and ``formatversion=2``; no key.
The reply's ``query.search`` list holds ``title``, ``pageid`` and ``snippet`` (HTML with
``<span class="searchmatch">`` marks), best first. The page is ``{site}/wiki/<Title>``
with spaces as underscores. Wikipedia gives no publication date (a page's timestamp is
its last edit), so ``published`` stays empty.

Errors come back with HTTP 200 as ``{"error": {"code": ..., "info": ...}}`` (and a
``MediaWiki-API-Error`` header): ``ratelimited`` becomes ``RateLimited``, ``maxlag``,
``readonly`` and ``internal_api_error_*`` ``ProviderUnavailable``, ``readapidenied`` (a
private wiki) ``ProviderAuthError``, any other code ``ProviderError``; only the code, never
the ``info`` text, is shown. Wikimedia asks API clients for an identifying User-Agent,
which the shared client sends (``user_agent``). CirrusSearch understands quotes and
``intitle:`` but not ``site:``, so operators are off.
"""

from __future__ import annotations

import re
from typing import Any, Unpack
from urllib.parse import quote

import httpx

from deepresearch.errors import ProviderAuthError, ProviderError, ProviderUnavailable, RateLimited
from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions, HttpSearchAdapter
from deepresearch.search.http import Target, items, safe_origin, text_field
from deepresearch.search.markup import plain

DEFAULT_BASE_URL = "https://en.wikipedia.org"
MAX_RESULTS = 50
_CODE = re.compile(r"^[A-Za-z0-9_.-]{1,60}$")
_SWITCH = "or choose another provider with --search"


class WikipediaSearch(HttpSearchAdapter):
    """Full-text search of one MediaWiki site (English Wikipedia by default)."""

    name = "wikipedia"
    supports_operators = False
    path = "/w/api.php"

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        **options: Unpack[HttpOptions],
    ) -> None:
        site = base_url.strip().rstrip("/")
        label = "Wikipedia" if site == DEFAULT_BASE_URL else f"the wiki at {safe_origin(site)}"
        target = Target(
            provider=self.name,
            label=label,
            auth_hint="the wiki does not let anonymous clients read it; "
            "check search_urls.wikipedia",
        )
        super().__init__(client, site, target, **options)
        self._site = site

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        data = await self._request_json(
            "GET",
            params={
                "action": "query",
                "list": "search",
                "srsearch": query,
                "srlimit": min(limit, MAX_RESULTS),
                "srprop": "snippet",
                "format": "json",
                "formatversion": 2,
            },
            headers={"Accept": "application/json"},
        )
        if "error" in data:
            raise self._api_error(data["error"])
        found = (self._found(entry) for entry in items(data, "query", "search"))
        return self._ranked(found, query=query, limit=limit)

    def _found(self, entry: dict[str, Any]) -> Found:
        title = text_field(entry, "title")
        return Found(
            url=self.page_url(title) if title else "",
            title=title,
            snippet=plain(text_field(entry, "snippet")),
        )

    def page_url(self, title: str) -> str:
        """The article's address: ``{site}/wiki/Title_with_underscores`` (percent-encoded)."""
        return f"{self._site}/wiki/{quote(title.replace(' ', '_'), safe='/:(),!*')}"

    def _api_error(self, error: object) -> ProviderError:
        code = error.get("code") if isinstance(error, dict) else None
        code = code if isinstance(code, str) and _CODE.match(code) else "unknown"
        where, provider = self._target.label, self.name
        if code == "ratelimited":
            return RateLimited(
                f"{where} is limiting requests (API error {code})",
                provider=provider,
                hint=f"wait a minute or lower --depth, {_SWITCH}",
            )
        if code in ("maxlag", "readonly") or code.startswith("internal_api_error"):
            return ProviderUnavailable(
                f"{where} cannot answer now (API error {code})",
                provider=provider,
                hint=f"try again later, {_SWITCH}",
            )
        if code == "readapidenied":
            return ProviderAuthError(
                f"{where} refused to let us read it (API error {code})",
                provider=provider,
                hint=self._target.auth_hint,
            )
        return ProviderError(
            f"{where} rejected the search (API error {code})",
            provider=provider,
            hint=f"the query may be unsupported; try a simpler query, {_SWITCH}",
        )
