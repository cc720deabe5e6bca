"""The provider-native web searches (``openai_web``, ``anthropic_web``) against loopback
servers speaking OpenAI's Responses API and Anthropic's Messages API: what is sent, which
pages come back, and that the model's own text never becomes a snippet or page text (the
run fetches and verifies every page like any other provider's). The shared HTTP failures
(401, 429 with Retry-After, 5xx, malformed bodies, timeouts) are in ``test_errors.py``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr

from deepresearch.errors import MissingKeyError, ProviderError, ProviderUnavailable, RateLimited
from deepresearch.search.anthropic_web import AnthropicWebSearch
from deepresearch.search.openai_web import OpenAIWebSearch
from deepresearch.search.registry import build_search_provider
from deepresearch.settings import Settings
from tests.search.conftest import anthropic_body, openai_body

LISTED = [
    ("https://energy.example/heat-pumps", "Heat pumps", "A heat pump moves heat."),
    ("https://wiki.example/COP", "COP", "Coefficient of performance."),
]


async def test_openai_request_and_pages(search_once, api_key) -> None:
    reply = openai_body(LISTED, sources=["https://wiki.example/COP", "https://more.example/x"])
    hits, request = await search_once("openai_web", reply, "heat pumps", limit=5)
    assert (request.method, request.path) == ("POST", "/responses")
    assert request.headers["authorization"] == f"Bearer {api_key}"
    body = request.json()
    assert body["tools"] == [{"type": "web_search"}]
    assert body["include"] == ["web_search_call.action.sources"]
    assert (body["tool_choice"], body["store"]) == ("required", False)
    assert body["model"] == "gpt-4.1-mini" and "heat pumps" in body["input"]
    # cited pages first (with their titles), then the other consulted sources, each once
    assert [(hit.url, hit.title) for hit in hits] == [
        ("https://energy.example/heat-pumps", "Heat pumps"),
        ("https://wiki.example/COP", "COP"),
        ("https://more.example/x", ""),
    ]
    assert [hit.rank for hit in hits] == [0, 1, 2]
    for hit in hits:  # the model's prose is not evidence: nothing of it is kept
        assert (hit.snippet, hit.content, hit.provider) == ("", None, "openai_web")


async def test_openai_model_is_configurable(provider_server, client, api_key) -> None:
    provider_server.respond(200, openai_body([]))
    search = OpenAIWebSearch(client, api_key, model="gpt-5", base_url=provider_server.base_url)
    assert await search.search("q", limit=3) == []
    assert provider_server.last.json()["model"] == "gpt-5"


async def test_anthropic_request_and_results(search_once, api_key) -> None:
    hits, request = await search_once(
        "anthropic_web", anthropic_body(LISTED), "heat pumps", limit=5
    )
    assert (request.method, request.path) == ("POST", "/v1/messages")
    assert request.headers["x-api-key"] == api_key
    assert request.headers["anthropic-version"] == "2023-06-01"
    body = request.json()
    assert body["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 1}]
    assert body["model"] == "claude-sonnet-4-5" and body["max_tokens"] > 0
    assert "heat pumps" in body["messages"][0]["content"]
    assert [(hit.url, hit.title) for hit in hits] == [(url, title) for url, title, _ in LISTED]
    assert hits[0].published == datetime(2025, 4, 30, tzinfo=UTC)
    for hit in hits:  # neither Claude's text nor its cited_text stands in for the page
        assert (hit.snippet, hit.content, hit.provider) == ("", None, "anthropic_web")


async def test_anthropic_max_uses_and_repeats(provider_server, client, api_key) -> None:
    reply = anthropic_body(LISTED)
    second = {**reply["content"][2], "tool_use_id": "srvtoolu_2"}  # a second search, same pages
    reply["content"].append(second)
    provider_server.respond(200, reply)
    search = AnthropicWebSearch(client, api_key, max_uses=3, base_url=provider_server.base_url)
    hits = await search.search("q", limit=10)
    assert [hit.url for hit in hits] == [url for url, _, _ in LISTED]
    assert provider_server.last.json()["tools"][0]["max_uses"] == 3


def _tool_error(code: str) -> dict[str, object]:
    reply = anthropic_body([])
    reply["content"][2]["content"] = {"type": "web_search_tool_result_error", "error_code": code}
    return reply


@pytest.mark.parametrize(
    ("code", "error", "words"),
    [
        ("too_many_requests", RateLimited, "answered 'too many requests'"),
        ("unavailable", ProviderUnavailable, "is unavailable"),
        ("query_too_long", ProviderError, "could not search (query_too_long)"),
        ("invalid_input", ProviderError, "could not search (invalid_input)"),
    ],
)
async def test_anthropic_tool_errors_inside_a_200(
    code, error, words, provider_server, connect, api_key
) -> None:
    provider_server.respond(200, _tool_error(code))
    with pytest.raises(error) as caught:
        await connect("anthropic_web").search("q", limit=3)
    assert type(caught.value) is error
    assert caught.value.message == f"Anthropic web search {words}"
    assert "--search" in caught.value.hint and api_key not in str(caught.value)


async def test_anthropic_error_after_results_keeps_the_results(provider_server, connect) -> None:
    reply = anthropic_body(LISTED)
    reply["content"].append(_tool_error("max_uses_exceeded")["content"][2])
    provider_server.respond(200, reply)
    hits = await connect("anthropic_web").search("q", limit=5)
    assert [hit.url for hit in hits] == [url for url, _, _ in LISTED]


async def test_rate_limit_retry_after_is_honoured(provider_server, connect) -> None:
    """A 429 with Retry-After, in the shape Anthropic sends it, then a result."""
    error = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    provider_server.respond(429, error, retry_after="0")
    provider_server.respond(200, anthropic_body(LISTED[:1]))
    hits = await connect("anthropic_web").search("q", limit=5)
    assert [hit.url for hit in hits] == [LISTED[0][0]]
    assert len(provider_server.requests) == 2


@pytest.mark.parametrize(
    ("name", "owner", "adapter", "model"),
    [
        ("openai_web", "openai", OpenAIWebSearch, "gpt-4.1-mini"),
        ("anthropic_web", "anthropic", AnthropicWebSearch, "claude-sonnet-4-5"),
    ],
)
def test_built_from_the_provider_keys_and_urls(client, name, owner, adapter, model) -> None:
    """The registry builds each from the ``OPENAI_API_KEY``/``ANTHROPIC_API_KEY`` settings,
    its model setting and ``search_urls`` (so tests and proxies point it anywhere)."""
    settings = Settings(
        search=name,
        search_urls={name: "http://127.0.0.1:9/v1"},
        **{f"{owner}_api_key": "k-1", f"{name}_model": f"{model}-x"},
    )
    built = build_search_provider(settings, client, data_dir=Path("."))
    assert isinstance(built, adapter)
    assert built._endpoint.startswith("http://127.0.0.1:9/v1/")
    assert built._model == f"{model}-x" and built._key == SecretStr("k-1")
    with pytest.raises(MissingKeyError) as caught:
        missing = Settings(search=name, **{f"{owner}_api_key": None})
        build_search_provider(missing, client, data_dir=Path("."))
    assert f"{owner.upper()}_API_KEY" in caught.value.hint
    assert name in caught.value.message
