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

from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
from lxml import html as lxml_html

from deepresearch.errors import RateLimited
from deepresearch.models import SearchHit
from deepresearch.search.http import CircuitBreaker, RetryPolicy, Target, send

DEFAULT_BASE_URL = "https://html.duckduckgo.com"


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


_RESULTS = f"//div[{_has_class('result')} and not({_has_class('result--ad')})]"
_TITLE = f".//a[{_has_class('result__a')}]"
_SNIPPET = f".//*[{_has_class('result__snippet')}]"


class DuckDuckGoSearch:
    """Search DuckDuckGo's HTML results page; no key needed."""

    name = "duckduckgo"
    supports_operators = True

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout_s: float = 8.0,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self._client = client
        self._endpoint = base_url.rstrip("/") + "/html/"
        self._timeout_s = timeout_s
        self._retry = retry or RetryPolicy()
        self._breaker = breaker or CircuitBreaker()
        self._target = Target(provider=self.name, label="DuckDuckGo")

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        if limit <= 0:
            return []
        response = await send(
            self._client,
            "POST",
            self._endpoint,
            target=self._target,
            timeout_s=self._timeout_s,
            retry=self._retry,
            breaker=self._breaker,
            form={"q": query},
            headers={"Accept": "text/html"},
        )
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
    tree = lxml_html.fromstring(page)
    hits: list[SearchHit] = []
    for result in tree.xpath(_RESULTS):
        anchors = result.xpath(_TITLE)
        if not anchors:
            continue
        url = decode_href(anchors[0].get("href", ""))
        if not url:
            continue
        snippets = result.xpath(_SNIPPET)
        hits.append(
            SearchHit(
                url=url,
                title=_text(anchors[0]),
                snippet=_text(snippets[0]) if snippets else "",
                provider="duckduckgo",
                query=query,
                rank=len(hits),
            )
        )
        if len(hits) >= limit:
            break
    return hits


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
