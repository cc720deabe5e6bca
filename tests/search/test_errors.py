"""Every web adapter maps the same HTTP failures to the same errors, retries what is
worth retrying, names itself and the fix, and never shows its API key or the reply body,
over real HTTP on loopback."""

from __future__ import annotations

from typing import Any

import pytest

from deepresearch.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from deepresearch.search.http import RetryPolicy
from tests.search.conftest import ADAPTERS, API_KEY, CALLS, JSON_ADAPTERS, KEYED, results_body

HIT = "https://a.example/page"
#: the query parameter that carries the key, for the providers that want it there
KEY_IN_QUERY = {"google": "key", "pubmed": "api_key"}
#: how each adapter names itself in messages ({url}: the base URL it was given)
LABELS = {
    "searxng": "SearXNG at {url}",
    "tavily": "Tavily",
    "exa": "Exa",
    "brave": "Brave Search",
    "google": "Google Custom Search",
    "duckduckgo": "DuckDuckGo",
    "serper": "Serper",
    "wikipedia": "the wiki at {url}",
    "arxiv": "arXiv",
    "pubmed": "PubMed (NCBI E-utilities)",
    "semantic_scholar": "Semantic Scholar",
    "openai_web": "OpenAI web search",
    "anthropic_web": "Anthropic web search",
}
#: what the hint says when the service cannot be reached, or its reply is not JSON
UNREACHABLE_HINTS = {"searxng": ("is it running?", "--searxng-url")}
BAD_BODY_HINTS = {"searxng": "--searxng-url"}
#: a refusal of the key (or, for SearXNG, of json output) in each provider's own words:
#: (status, body, what the hint must name, a part of the body the error must not show)
REFUSALS: dict[str, tuple[int, Any, str, str]] = {
    "searxng": (403, "<html>Forbidden</html>", "search.formats", "Forbidden"),
    "tavily": (
        401,
        {"detail": {"error": f"Unauthorized: bad key {API_KEY}"}},
        "DEEPRESEARCH_TAVILY_API_KEY",
        "Unauthorized",
    ),
    "exa": (
        401,
        {"error": f"Invalid API key {API_KEY}"},
        "DEEPRESEARCH_EXA_API_KEY",
        "Invalid",
    ),
    "brave": (
        422,
        {"type": "ErrorResponse", "error": {"status": 422, "code": "SUBSCRIPTION_TOKEN_INVALID"}},
        "DEEPRESEARCH_BRAVE_API_KEY",
        "SUBSCRIPTION_TOKEN_INVALID",
    ),
    "google": (
        400,
        {
            "error": {
                "code": 400,
                "message": "API key not valid. Please pass a valid API key.",
                "status": "INVALID_ARGUMENT",
                "details": [{"reason": "API_KEY_INVALID", "domain": "googleapis.com"}],
            }
        },
        "DEEPRESEARCH_GOOGLE_API_KEY",
        "not valid",
    ),
    "serper": (
        403,
        {"message": "Unauthorized.", "statusCode": 403},
        "DEEPRESEARCH_SERPER_API_KEY",
        "Unauthorized",
    ),
    "semantic_scholar": (
        403,
        {"message": "Forbidden"},
        "DEEPRESEARCH_SEMANTIC_SCHOLAR_API_KEY",
        "Forbidden",
    ),
    # NCBI answers a bad key with 400 and says so in the body
    "pubmed": (
        400,
        {"error": "API key invalid", "api-key": API_KEY, "type": "api-key", "status": "unknown"},
        "DEEPRESEARCH_NCBI_API_KEY",
        "invalid",
    ),
    "openai_web": (
        401,
        {
            "error": {
                "message": f"Incorrect API key provided: {API_KEY}.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
        },
        "OPENAI_API_KEY",
        "Incorrect",
    ),
    "anthropic_web": (
        401,
        {
            "type": "error",
            "error": {"type": "authentication_error", "message": "invalid x-api-key"},
        },
        "ANTHROPIC_API_KEY",
        "invalid x-api-key",
    ),
}
#: 4xx replies that are neither a refused key nor a rate limit: (status, body, not shown)
OTHER_CLIENT_ERRORS = [(name, 400, {"error": "bad request"}, "bad request") for name in ADAPTERS]
OTHER_CLIENT_ERRORS += [
    ("tavily", 432, {"detail": {"error": "This request exceeds your plan's limit."}}, "plan"),
    ("brave", 422, {"type": "ErrorResponse", "error": {"code": "VALIDATION"}}, "VALIDATION"),
]


def assert_safe(error: ProviderError, key: str, provider: str) -> None:
    assert error.provider == provider
    for text in (str(error), repr(error), error.message, error.hint):
        assert key not in text
        assert "Traceback" not in text
    assert error.hint, "every error tells the user what to do"


def ok_body(name: str) -> Any:
    return results_body(name, [(HIT, "A", "a")])


async def test_rejected_credentials(adapter_name, provider_server, connect, api_key) -> None:
    provider_server.always(401, {"error": f"invalid key {api_key}"})
    with pytest.raises(ProviderAuthError) as caught:
        await connect(adapter_name).search("q", limit=5)
    assert "HTTP 401" in caught.value.message
    assert_safe(caught.value, api_key, adapter_name)
    assert len(provider_server.requests) == 1, "a refused key is not retried"


@pytest.mark.parametrize("adapter_name", sorted(REFUSALS))
async def test_a_refusal_names_the_fix(adapter_name, provider_server, connect, api_key) -> None:
    status, body, fix, echo = REFUSALS[adapter_name]
    provider_server.respond(status, body)
    with pytest.raises(ProviderAuthError) as caught:
        await connect(adapter_name).search("q", limit=3)
    assert fix in caught.value.hint
    assert echo not in str(caught.value)
    assert_safe(caught.value, api_key, adapter_name)
    assert len(provider_server.requests) == 1


async def test_one_429_then_success_is_retried(adapter_name, provider_server, connect) -> None:
    provider_server.respond(429, {"error": "slow down"}, retry_after="0")
    provider_server.always(200, ok_body(adapter_name))
    hits = await connect(adapter_name).search("q", limit=5)
    assert [hit.title for hit in hits] == ["A"]
    assert len(provider_server.requests) == 1 + CALLS.get(adapter_name, 1)


async def test_persistent_429_is_rate_limited(
    adapter_name, provider_server, connect, api_key
) -> None:
    provider_server.always(429, {"error": "slow down"}, retry_after="30")
    with pytest.raises(RateLimited) as caught:
        await connect(adapter_name).search("q", limit=5)
    assert "tried 3 times" in caught.value.message
    assert_safe(caught.value, api_key, adapter_name)
    assert len(provider_server.requests) == 3


@pytest.mark.parametrize(
    ("status", "body"),
    [(500, {"error": f"boom {API_KEY}"}), (503, "<html>boom</html>")],
)
async def test_server_errors_become_unavailable(
    adapter_name, status, body, provider_server, connect, api_key
) -> None:
    provider_server.always(status, body)
    with pytest.raises(ProviderUnavailable) as caught:
        await connect(adapter_name).search("q", limit=5)
    assert f"HTTP {status}" in caught.value.message and "boom" not in str(caught.value)
    assert_safe(caught.value, api_key, adapter_name)
    assert len(provider_server.requests) == 3


async def test_one_502_then_success(adapter_name, provider_server, connect) -> None:
    provider_server.respond(502, "bad gateway")
    provider_server.always(200, ok_body(adapter_name))
    hits = await connect(adapter_name).search("q", limit=5)
    assert len(hits) == 1 and len(provider_server.requests) == 1 + CALLS.get(adapter_name, 1)


@pytest.mark.parametrize(("adapter_name", "status", "body", "echo"), OTHER_CLIENT_ERRORS)
async def test_other_client_errors_are_not_retried(
    adapter_name, status, body, echo, provider_server, connect, api_key
) -> None:
    provider_server.always(status, body)
    with pytest.raises(ProviderError) as caught:
        await connect(adapter_name).search("q", limit=5)
    assert type(caught.value) is ProviderError
    assert f"HTTP {status}" in caught.value.message
    assert echo not in str(caught.value)
    assert_safe(caught.value, api_key, adapter_name)
    assert len(provider_server.requests) == 1


@pytest.mark.parametrize("adapter_name", JSON_ADAPTERS)
@pytest.mark.parametrize(
    ("body", "what"),
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe garbage", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b"", "not valid JSON"),
        ("<html><body>results</body></html>", "not valid JSON"),
    ],
)
async def test_malformed_json(adapter_name, body, what, provider_server, connect, api_key) -> None:
    provider_server.respond(200, body)
    with pytest.raises(ProviderError) as caught:
        await connect(adapter_name).search("q", limit=5)
    assert type(caught.value) is ProviderError
    assert what in caught.value.message
    assert BAD_BODY_HINTS.get(adapter_name, "changed its API") in caught.value.hint
    assert_safe(caught.value, api_key, adapter_name)


async def test_connection_refused(adapter_name, dead_url, connect, api_key) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        await connect(adapter_name, base_url=dead_url).search("q", limit=5)
    label = LABELS[adapter_name].format(url=dead_url)
    assert f"{label} could not be reached; tried 3 times" in caught.value.message
    for part in UNREACHABLE_HINTS.get(adapter_name, ("check your network connection",)):
        assert part in caught.value.hint
    assert_safe(caught.value, api_key, adapter_name)


async def test_timeout(adapter_name, provider_server, connect, api_key) -> None:
    provider_server.respond(200, ok_body(adapter_name), delay_s=1.0)
    provider = connect(
        adapter_name, retry=RetryPolicy(max_retries=0, base_delay_s=0, max_delay_s=0)
    )
    provider._timeout_s = 0.1
    with pytest.raises(ProviderUnavailable) as caught:
        await provider.search("q", limit=5)
    assert "did not answer within 0.1s" in caught.value.message
    assert_safe(caught.value, api_key, adapter_name)


@pytest.mark.parametrize("adapter_name", KEYED)
async def test_key_travels_only_where_the_provider_wants_it(
    adapter_name, provider_server, connect, api_key
) -> None:
    provider_server.always(200, ok_body(adapter_name))
    await connect(adapter_name).search("q", limit=5)
    assert len(provider_server.requests) == CALLS.get(adapter_name, 1)
    for request in provider_server.requests:
        in_query = [name for name, values in request.query.items() if api_key in values[0]]
        in_headers = [name for name, value in request.headers.items() if api_key in value]
        in_body = api_key.encode() in request.body
        where = KEY_IN_QUERY.get(adapter_name)
        if where:
            assert in_query == [where] and not in_headers and not in_body
        else:
            assert not in_query and not in_body and len(in_headers) == 1
