"""OpenAI's hosted web search (the Responses API's ``web_search`` tool) as a search provider.

Wire format (OpenAI's web search guide and Responses API reference): ``POST
{base}/responses`` with ``Authorization: Bearer <key>`` and a JSON body ``{model, input,
tools: [{"type": "web_search"}], tool_choice: "required", include:
["web_search_call.action.sources"], store: false}``. The
reply's ``output`` list holds ``web_search_call`` items, whose ``action`` (type
``search``) lists every page consulted in ``sources`` (``{type: "url", url}``), and a
``message`` item whose ``output_text`` parts carry ``annotations`` of type
``url_citation`` (``url``, ``title``, ``start_index``, ``end_index``). Errors: 401 bad key,
429 rate or quota limit (with ``retry-after``), 5xx.

Only addresses and titles are taken: the cited pages first (they carry titles), then the
other consulted sources, each once. The model's own text is never kept, not even as a
snippet, so a page the run cannot fetch gives no evidence: every quote comes from a page
the run read itself (``reading.py``), like any other provider's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Unpack

import httpx
from pydantic import SecretStr

from deepresearch.models import SearchHit
from deepresearch.search.adapter import Found, HttpOptions, HttpSearchAdapter
from deepresearch.search.http import Target, items, reveal, text_field

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4.1-mini"
#: what the model is asked: search, then list pages (its prose is thrown away)
PROMPT = (
    "Search the web for: {query}\n"
    "Then list the {limit} most relevant pages you found, citing each one."
)


class OpenAIWebSearch(HttpSearchAdapter):
    """Search with OpenAI's ``web_search`` tool; hits are the pages it cited or consulted."""

    name = "openai_web"
    supports_operators = False
    path = "/responses"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: SecretStr | str,
        *,
        model: str = DEFAULT_MODEL,
        base_url: str = DEFAULT_BASE_URL,
        **options: Unpack[HttpOptions],
    ) -> None:
        target = Target(
            provider=self.name,
            label="OpenAI web search",
            auth_hint="check DEEPRESEARCH_OPENAI_API_KEY or OPENAI_API_KEY: "
            "the key may be wrong, expired or without access to web search",
        )
        super().__init__(client, base_url, target, **options)
        self._key = api_key
        self._model = model

    async def _search(self, query: str, limit: int) -> list[SearchHit]:
        data = await self._request_json(
            "POST",
            headers={"Authorization": f"Bearer {reveal(self._key)}"},
            json_body={
                "model": self._model,
                "input": PROMPT.format(query=query, limit=limit),
                "tools": [{"type": "web_search"}],
                # search, always: an answer from memory would name no page to read
                "tool_choice": "required",
                "include": ["web_search_call.action.sources"],
                "store": False,  # nothing of the run is kept on OpenAI's side
            },
        )
        return self._ranked(pages(data), query=query, limit=limit)


def pages(data: Mapping[str, Any]) -> Iterator[Found]:
    """The pages a Responses reply names, each once: cited ones first, then the sources."""
    output = items(data, "output")
    titles: dict[str, str] = {}
    for item in output:
        if item.get("type") == "message":
            for part in items(item, "content"):
                for note in items(part, "annotations"):
                    url = text_field(note, "url")
                    if note.get("type") == "url_citation" and url and url not in titles:
                        titles[url] = text_field(note, "title")
    for item in output:
        if item.get("type") == "web_search_call":
            for source in items(item, "action", "sources"):
                url = text_field(source, "url")
                if url and url not in titles:
                    titles[url] = ""
    for url, title in titles.items():
        yield Found(url=url, title=title)
