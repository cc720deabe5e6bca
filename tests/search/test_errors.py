"""Every web adapter maps the same HTTP failures to the same errors, retries what is
worth retrying, and never shows its API key, over real HTTP on loopback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from deepresearch.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from deepresearch.search.base import SearchProvider
from deepresearch.search.brave import BraveSearch
from deepresearch.search.duckduckgo import DuckDuckGoSearch
from deepresearch.search.exa import ExaSearch
from deepresearch.search.google_cse import GoogleSearch
from deepresearch.search.http import RetryPolicy
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.tavily import TavilySearch

Build = Callable[[httpx.AsyncClient, str, str, RetryPolicy], SearchProvider]
HIT = "https://a.example/page"
DDG_PAGE = (
    '<div class="result"><a class="result__a" href="https://a.example/page">A</a>'
    '<a class="result__snippet">a</a></div>'
)

ADAPTERS: dict[str, tuple[Build, Any]] = {
    "searxng": (
        lambda c, url, key, r: SearxngSearch(c, url, timeout_s=2, retry=r),
        {"results": [{"url": HIT, "title": "A", "content": "a"}]},
    ),
    "tavily": (
        lambda c, url, key, r: TavilySearch(c, key, base_url=url, timeout_s=2, retry=r),
        {"results": [{"url": HIT, "title": "A", "content": "a", "score": 0.5}]},
    ),
    "exa": (
        lambda c, url, key, r: ExaSearch(c, key, base_url=url, timeout_s=2, retry=r),
        {"results": [{"url": HIT, "title": "A", "text": "a"}]},
    ),
    "brave": (
        lambda c, url, key, r: BraveSearch(c, key, base_url=url, timeout_s=2, retry=r),
        {"web": {"results": [{"url": HIT, "title": "A", "description": "a"}]}},
    ),
    "google": (
        lambda c, url, key, r: GoogleSearch(c, key, "cx1", base_url=url, timeout_s=2, retry=r),
        {"items": [{"link": HIT, "title": "A", "snippet": "a"}]},
    ),
    "duckduckgo": (
        lambda c, url, key, r: DuckDuckGoSearch(c, base_url=url, timeout_s=2, retry=r),
        DDG_PAGE,
    ),
}
JSON_ADAPTERS = [name for name in ADAPTERS if name != "duckduckgo"]
KEYED = ["tavily", "exa", "brave", "google"]


def assert_safe(error: ProviderError, key: str, provider: str) -> None:
    assert error.provider == provider
    for text in (str(error), repr(error), error.message, error.hint):
        assert key not in text
        assert "Traceback" not in text
    assert error.hint, "every error tells the user what to do"


@pytest.fixture(params=sorted(ADAPTERS))
def name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_happy_path(name, provider_server, client, api_key, fast_retry) -> None:
    build, ok = ADAPTERS[name]
    provider_server.respond(200, ok)
    hits = await build(client, provider_server.base_url, api_key, fast_retry).search("q", limit=5)
    assert [(hit.url, hit.title, hit.provider, hit.rank) for hit in hits] == [(HIT, "A", name, 0)]


async def test_rejected_credentials(name, provider_server, client, api_key, fast_retry) -> None:
    build, _ = ADAPTERS[name]
    provider_server.always(401, {"error": f"invalid key {api_key}"})
    with pytest.raises(ProviderAuthError) as caught:
        await build(client, provider_server.base_url, api_key, fast_retry).search("q", limit=5)
    assert "HTTP 401" in caught.value.message
    assert_safe(caught.value, api_key, name)
    assert len(provider_server.requests) == 1, "a refused key is not retried"


async def test_one_429_then_success_is_retried(
    name, provider_server, client, api_key, fast_retry
) -> None:
    build, ok = ADAPTERS[name]
    provider_server.respond(429, {"error": "slow down"}, retry_after="0")
    provider_server.respond(200, ok)
    hits = await build(client, provider_server.base_url, api_key, fast_retry).search("q", limit=5)
    assert [hit.url for hit in hits] == [HIT]
    assert len(provider_server.requests) == 2


async def test_persistent_429_is_rate_limited(
    name, provider_server, client, api_key, fast_retry
) -> None:
    build, _ = ADAPTERS[name]
    provider_server.always(429, {"error": "slow down"}, retry_after="30")
    with pytest.raises(RateLimited) as caught:
        await build(client, provider_server.base_url, api_key, fast_retry).search("q", limit=5)
    assert "tried 3 times" in caught.value.message
    assert_safe(caught.value, api_key, name)
    assert len(provider_server.requests) == 3


async def test_server_errors_become_unavailable(
    name, provider_server, client, api_key, fast_retry
) -> None:
    build, _ = ADAPTERS[name]
    provider_server.always(500, {"error": f"boom {api_key}"})
    with pytest.raises(ProviderUnavailable) as caught:
        await build(client, provider_server.base_url, api_key, fast_retry).search("q", limit=5)
    assert "HTTP 500" in caught.value.message and "boom" not in str(caught.value)
    assert_safe(caught.value, api_key, name)
    assert len(provider_server.requests) == 3


async def test_one_502_then_success(name, provider_server, client, api_key, fast_retry) -> None:
    build, ok = ADAPTERS[name]
    provider_server.respond(502, "bad gateway")
    provider_server.respond(200, ok)
    hits = await build(client, provider_server.base_url, api_key, fast_retry).search("q", limit=5)
    assert len(hits) == 1 and len(provider_server.requests) == 2


async def test_other_client_errors_are_not_retried(
    name, provider_server, client, api_key, fast_retry
) -> None:
    build, _ = ADAPTERS[name]
    provider_server.always(400, {"error": "bad request"})
    with pytest.raises(ProviderError) as caught:
        await build(client, provider_server.base_url, api_key, fast_retry).search("q", limit=5)
    assert type(caught.value) is ProviderError
    assert_safe(caught.value, api_key, name)
    assert len(provider_server.requests) == 1


@pytest.mark.parametrize("adapter_name", JSON_ADAPTERS)
@pytest.mark.parametrize("body", [b"{not json", b"\xff\xfe garbage", b"[1, 2]", b""])
async def test_malformed_json(
    adapter_name, body, provider_server, client, api_key, fast_retry
) -> None:
    build, _ = ADAPTERS[adapter_name]
    provider_server.respond(200, body)
    with pytest.raises(ProviderError) as caught:
        await build(client, provider_server.base_url, api_key, fast_retry).search("q", limit=5)
    assert type(caught.value) is ProviderError
    assert "JSON" in caught.value.message
    assert_safe(caught.value, api_key, adapter_name)


async def test_connection_refused(name, dead_url, client, api_key, fast_retry) -> None:
    build, _ = ADAPTERS[name]
    with pytest.raises(ProviderUnavailable) as caught:
        await build(client, dead_url, api_key, fast_retry).search("q", limit=5)
    assert "could not be reached; tried 3 times" in caught.value.message
    assert_safe(caught.value, api_key, name)


async def test_timeout(name, provider_server, client, api_key) -> None:
    build, ok = ADAPTERS[name]
    provider_server.respond(200, ok, delay_s=1.0)
    no_retry = RetryPolicy(max_retries=0, base_delay_s=0, max_delay_s=0)
    provider = build(client, provider_server.base_url, api_key, no_retry)
    provider._timeout_s = 0.1  # type: ignore[attr-defined]
    with pytest.raises(ProviderUnavailable) as caught:
        await provider.search("q", limit=5)
    assert "did not answer within 0.1s" in caught.value.message
    assert_safe(caught.value, api_key, name)


@pytest.mark.parametrize("adapter_name", KEYED)
async def test_key_travels_only_where_the_provider_wants_it(
    adapter_name, provider_server, client, api_key, fast_retry
) -> None:
    build, ok = ADAPTERS[adapter_name]
    provider_server.respond(200, ok)
    await build(client, provider_server.base_url, api_key, fast_retry).search("q", limit=5)
    request = provider_server.last
    in_query = any(api_key in value for values in request.query.values() for value in values)
    in_headers = [name for name, value in request.headers.items() if api_key in value]
    in_body = api_key.encode() in request.body
    if adapter_name == "google":
        assert in_query and not in_headers and not in_body
    else:
        assert not in_query and not in_body and len(in_headers) == 1
