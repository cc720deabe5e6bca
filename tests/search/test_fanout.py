"""Several providers as one: a local corpus and a web provider over loopback answer the
same query, their lists are fused, a failing provider is reported while the others answer,
and only a search that fails everywhere is an error."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from deepresearch.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from deepresearch.models import SearchHit
from deepresearch.search.fanout import FanOutSearch
from deepresearch.search.local import LocalSearch
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.serper import SerperSearch
from tests.search.conftest import API_KEY, FAST_RETRY, results_body

WEB = [
    ("https://grid.example/storage", "Grid storage", "Batteries store grid energy."),
    ("https://shared.example/page", "Shared", "Found by both web providers."),
]


@pytest.fixture
def local(tmp_path: Path) -> LocalSearch:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "notes.md").write_text(
        "# Battery notes\n\nOur lab measured battery storage at 91% round-trip efficiency.\n"
    )
    (corpus / "other.md").write_text("# Other\n\nBattery chemistry basics.\n")
    return LocalSearch(corpus, tmp_path / "index.sqlite3")


def searxng(client, server) -> SearxngSearch:
    return SearxngSearch(client, server.base_url, timeout_s=2, retry=FAST_RETRY)


def serper(client, server) -> SerperSearch:
    return SerperSearch(client, API_KEY, base_url=server.base_url, timeout_s=2, retry=FAST_RETRY)


async def test_local_and_web_in_one_list(local, provider_server, client) -> None:
    provider_server.respond(200, results_body("searxng", WEB))
    both = FanOutSearch([local, searxng(client, provider_server)])
    assert both.name == "local,searxng" and both.supports_operators is False
    hits = await both.search("battery storage", limit=4)
    assert provider_server.last.param("q") == "battery storage"
    urls = [hit.url for hit in hits]
    # the two lists interleave: each one's first hit, then each one's second
    assert urls[0].startswith("file://") and urls[0].endswith("notes.md")
    assert urls[1] == "https://grid.example/storage"
    assert urls[2].startswith("file://") and urls[3] == "https://shared.example/page"
    assert [hit.providers for hit in hits] == [("local",), ("searxng",)] * 2
    assert [hit.rank for hit in hits] == [0, 1, 2, 3]
    local_hit = hits[0]
    assert local_hit.provider == "local" and local_hit.content, "the corpus text travels along"


async def test_a_page_from_two_web_providers_is_one_hit_naming_both(
    provider_server, second_server, client
) -> None:
    provider_server.respond(200, results_body("searxng", WEB))
    second_server.respond(200, results_body("serper", [WEB[1], ("https://s.example/", "S", "s")]))
    both = FanOutSearch([searxng(client, provider_server), serper(client, second_server)])
    assert both.supports_operators is True
    hits = await both.search('"battery" site:grid.example', limit=10)
    assert second_server.last.json()["q"] == '"battery" site:grid.example'
    assert hits[0].url == "https://shared.example/page"
    assert hits[0].providers == ("searxng", "serper")
    assert len(hits) == 3


async def test_a_failing_provider_is_reported_and_the_others_answer(
    local, provider_server, client
) -> None:
    provider_server.always(503, "<html>down</html>")
    failures: list[ProviderError] = []
    both = FanOutSearch([local, searxng(client, provider_server)], on_failure=failures.append)
    hits = await both.search("battery storage", limit=5)
    assert hits and all(hit.provider == "local" for hit in hits)
    (failure,) = failures
    assert isinstance(failure, ProviderUnavailable) and failure.provider == "searxng"
    assert "HTTP 503" in failure.message


async def test_a_refused_key_at_one_provider_does_not_stop_the_others(
    local, provider_server, client
) -> None:
    provider_server.always(401, {"message": f"bad key {API_KEY}"})
    failures: list[ProviderError] = []
    both = FanOutSearch([serper(client, provider_server), local], on_failure=failures.append)
    assert await both.search("battery", limit=3)
    assert [type(error) for error in failures] == [ProviderAuthError]


async def test_every_provider_failing_is_one_error_naming_each(
    provider_server, second_server, client
) -> None:
    provider_server.always(401, {"message": f"bad key {API_KEY}"})
    second_server.always(500, {"error": "boom"})
    failures: list[ProviderError] = []
    both = FanOutSearch(
        [serper(client, provider_server), searxng(client, second_server)],
        on_failure=failures.append,
    )
    with pytest.raises(ProviderAuthError) as caught:
        await both.search("q", limit=3)
    error = caught.value
    assert error.provider == "serper,searxng"
    assert error.message.startswith("every search provider failed: serper: Serper refused")
    assert "searxng: SearXNG at" in error.message and "HTTP 500" in error.message
    assert "DEEPRESEARCH_SERPER_API_KEY" in error.hint
    assert API_KEY not in str(error) and "boom" not in str(error)
    assert failures == [], "the error says it all; no separate warnings"


async def test_failures_of_one_kind_keep_that_kind(provider_server, second_server, client) -> None:
    provider_server.always(429, {"error": "slow"})
    second_server.always(429, {"error": "slow"})
    both = FanOutSearch([searxng(client, provider_server), serper(client, second_server)])
    with pytest.raises(RateLimited):
        await both.search("q", limit=3)


class Gate:
    """A provider that answers only once every provider of the search has started."""

    supports_operators = False

    def __init__(self, name: str, started: list[str], everyone: asyncio.Event, total: int):
        self.name, self._started, self._everyone, self._total = name, started, everyone, total

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        self._started.append(self.name)
        if len(self._started) == self._total:
            self._everyone.set()
        await self._everyone.wait()
        return [SearchHit(url=f"https://{self.name}.example/", provider=self.name)]


async def test_providers_are_asked_at_the_same_time() -> None:
    started: list[str] = []
    everyone = asyncio.Event()
    gates = [Gate(name, started, everyone, 3) for name in ("a", "b", "c")]
    # one after the other, the first would wait forever for the others
    hits = await asyncio.wait_for(FanOutSearch(gates).search("q", limit=5), timeout=5)
    assert sorted(started) == ["a", "b", "c"] and len(hits) == 3


async def test_a_limit_below_one_asks_nobody(local, provider_server, client) -> None:
    both = FanOutSearch([local, searxng(client, provider_server)])
    assert await both.search("battery", limit=0) == []
    assert provider_server.requests == []


def test_one_provider_is_not_a_fan_out(local) -> None:
    with pytest.raises(ValueError, match="at least two"):
        FanOutSearch([local])
