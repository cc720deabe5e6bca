"""Anthropic's hosted web search (the Messages API's web search tool) as a search provider.

Wire format (Anthropic's web search tool documentation): ``POST {base}/v1/messages`` with
headers ``x-api-key: <key>`` and ``anthropic-version: 2023-06-01`` and a JSON body
``{model, max_tokens, messages, tools: [{"type": "web_search_20250305", "name":
"web_search", "max_uses": N}]}``. The reply's ``content`` list holds ``server_tool_use``
blocks (the query Claude searched), ``web_search_tool_result`` blocks whose ``content``
is a list of ``web_search_result`` entries (``url``, ``title``, ``page_age``,
``encrypted_content``) or, when the search failed, one ``web_search_tool_result_error``
object with an ``error_code`` (``too_many_requests``, ``invalid_input``,
``max_uses_exceeded``, ``query_too_long``, ``unavailable``), and ``text`` blocks. HTTP
errors: 401 bad key, 429 rate limit (with ``retry-after``), 529 overloaded, 5xx.

Only addresses, titles and ages are taken, in the order the results came; Claude's text
is never kept, not even as a snippet, so every quote comes from a page the run fetched and
read itself (``reading.py``), like any other provider's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Unpack

import httpx
from pydantic import SecretStr

from deepresearch.errors import ProviderError, ProviderUnavailable, RateLimited
from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions, HttpSearchAdapter
from deepresearch.search.http import Target, items, parse_published, reveal, text_field

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MODEL = "claude-sonnet-4-5"
API_VERSION = "2023-06-01"
TOOL_TYPE = "web_search_20250305"
#: Claude's answer is thrown away, so it is kept short
MAX_TOKENS = 1024
PROMPT = "Search the web for: {query}\nThen name the most relevant pages you found."
_SWITCH = "or choose another provider with --search"


class AnthropicWebSearch(HttpSearchAdapter):
    """Search with Anthropic's web search tool; hits are the results it returned."""

    name = "anthropic_web"
    supports_operators = False
    path = "/v1/messages"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: SecretStr | str,
        *,
        model: str = DEFAULT_MODEL,
        max_uses: int = 1,
        base_url: str = DEFAULT_BASE_URL,
        **options: Unpack[HttpOptions],
    ) -> None:
        target = Target(
            provider=self.name,
            label="Anthropic web search",
            auth_hint="check DEEPRESEARCH_ANTHROPIC_API_KEY or ANTHROPIC_API_KEY: "
            "the key may be wrong, expired or without web search enabled",
        )
        super().__init__(client, base_url, target, **options)
        self._key = api_key
        self._model = model
        self._max_uses = max_uses

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        tool = {"type": TOOL_TYPE, "name": "web_search", "max_uses": self._max_uses}
        data = await self._request_json(
            "POST",
            headers={"x-api-key": reveal(self._key), "anthropic-version": API_VERSION},
            json_body={
                "model": self._model,
                "max_tokens": MAX_TOKENS,
                "messages": [{"role": "user", "content": PROMPT.format(query=query)}],
                "tools": [tool],
            },
        )
        return self._ranked(self._results(data), query=query, limit=limit)

    def _results(self, data: Mapping[str, Any]) -> Iterator[Found]:
        """Every result of every search block, each address once; a search that failed
        raises, unless an earlier one already found pages."""
        seen: set[str] = set()
        for block in items(data, "content"):
            if block.get("type") != "web_search_tool_result":
                continue
            content = block.get("content")
            if isinstance(content, Mapping):
                if not seen:
                    raise self._tool_error(content)
                continue
            for entry in items(block, "content"):
                url = text_field(entry, "url")
                if entry.get("type") != "web_search_result" or not url or url in seen:
                    continue
                seen.add(url)
                yield Found(
                    url=url,
                    title=text_field(entry, "title"),
                    published=parse_published(entry.get("page_age")),
                )

    def _tool_error(self, error: Mapping[str, Any]) -> ProviderError:
        """The search tool's own failure (inside a 200 reply) as our error."""
        code = text_field(error, "error_code") or "unknown"
        label, provider = self._target.label, self.name
        if code == "too_many_requests":
            return RateLimited(
                f"{label} answered 'too many requests'",
                provider=provider,
                hint=f"wait a minute or lower --depth, {_SWITCH}",
            )
        if code == "unavailable":
            return ProviderUnavailable(
                f"{label} is unavailable", provider=provider, hint=f"try again later, {_SWITCH}"
            )
        return ProviderError(
            f"{label} could not search ({code})",
            provider=provider,
            hint=f"the query may be too long or unsupported, {_SWITCH}",
        )
