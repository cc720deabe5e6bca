"""DuckDuckGo through its keyless HTML endpoint: the default, needing no account.

Wire format (the page html.duckduckgo.com serves, as parsed by duckduckgo_search and
others): ``POST {base}/html/`` with form field ``q``. Each organic hit is a
``div.result`` holding ``a.result__a`` (title; its ``href`` is either the target or a
``//duckduckgo.com/l/?uddg=<percent-encoded target>`` redirect) and
``.result__snippet``; ads carry ``result--ad``. When DuckDuckGo suspects a bot it answers
202 with a challenge page instead of results. It understands quotes, ``site:`` and
``-site:``. There is no score and no date.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Unpack
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
from lxml import html as lxml_html

from deepresearch.errors import RateLimited
from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions, HttpSearchAdapter, ranked_hits
from deepresearch.search.http import Target

DEFAULT_BASE_URL = "https://html.duckduckgo.com"


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


_RESULTS = f"//div[{_has_class('result')} and not({_has_class('result--ad')})]"
_TITLE = f".//a[{_has_class('result__a')}]"
_SNIPPET = f".//*[{_has_class('result__snippet')}]"


class DuckDuckGoSearch(HttpSearchAdapter):
    """Search DuckDuckGo's HTML results page; no key needed."""

    name = "duckduckgo"
    supports_operators = True
    path = "/html/"

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        **options: Unpack[HttpOptions],
    ) -> None:
        super().__init__(
            client, base_url, Target(provider=self.name, label="DuckDuckGo"), **options
        )

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        response = await self._request("POST", form={"q": query}, headers={"Accept": "text/html"})
        if response.status_code == 202 or b"anomaly-modal" in response.content:
            raise RateLimited(
                "DuckDuckGo asked for a bot check instead of answering",
                provider=self.name,
                hint="wait a few minutes, or choose another provider with --search",
            )
        return parse_results(response.text, query=query, limit=limit)


def parse_results(page: str, *, query: str, limit: int) -> list[SearchHit]:
    """The organic hits of a DuckDuckGo HTML results page, best first."""
    if not page.strip():
        return []
    found = _found(lxml_html.fromstring(page))
    return ranked_hits(found, provider=DuckDuckGoSearch.name, query=query, limit=limit)


def _found(tree: lxml_html.HtmlElement) -> Iterator[Found]:
    for result in tree.xpath(_RESULTS):
        anchors = result.xpath(_TITLE)
        if not anchors:
            continue
        snippets = result.xpath(_SNIPPET)
        yield Found(
            url=decode_href(anchors[0].get("href", "")),
            title=_text(anchors[0]),
            snippet=_text(snippets[0]) if snippets else "",
        )


def decode_href(href: str) -> str:
    """The target of a result link: unwrap ``/l/?uddg=`` redirects, drop ad links."""
    absolute = urljoin("https://duckduckgo.com/", href.strip())
    parts = urlsplit(absolute)
    host = (parts.hostname or "").lower()
    if host.endswith("duckduckgo.com"):
        if parts.path == "/l/":
            targets = parse_qs(parts.query).get("uddg", [])
            return decode_href(targets[0]) if targets else ""
        return ""
    return absolute if parts.scheme in ("http", "https") and host else ""


def _text(element: lxml_html.HtmlElement) -> str:
    return " ".join(element.text_content().split())
