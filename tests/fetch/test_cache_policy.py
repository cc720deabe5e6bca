"""A cached page obeys the current run's fetch policy (issue 13): it is served only when
this run's fetcher would fetch its URL and every redirect hop now, judged on a fresh
lookup through the stub resolver; otherwise the page is fetched (and refused) as if
nothing were cached, with the same error a live fetch gives. Nothing leaves loopback."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.base import FetchedPage
from deepresearch.fetch.cache import CachingFetcher, PageCache
from deepresearch.fetch.http_fetcher import HttpFetcher

from .netstub import PAGE, LoopServer, RoutingBackend, StubResolver, page, send

PUBLIC = "93.184.216.34"
PRIVATE = "10.1.2.3"
INTRANET = "http://intranet.example/doc"


class Net:
    """Two loopback sites behind a stub resolver: a public one and an intranet one."""

    def __init__(self, public: LoopServer, intranet: LoopServer) -> None:
        self.public = public
        self.intranet = intranet
        self.answers: dict[str, list[str]] = {
            "intranet.example": [PRIVATE],
            "www.public.example": [PUBLIC],
            "news.example": [PUBLIC],
        }
        self.resolver = StubResolver({host: self._answer(host) for host in self.answers})
        self.backend = RoutingBackend({PUBLIC: public.route, PRIVATE: intranet.route})

    def _answer(self, host: str) -> object:
        return lambda: self.answers[host]

    def fetcher(self, **kwargs: object) -> HttpFetcher:
        kwargs.setdefault("respect_robots", False)
        kwargs.setdefault("min_interval_s", 0)
        kwargs.setdefault("max_retries", 0)
        return HttpFetcher(resolver=self.resolver, network_backend=self.backend, **kwargs)  # type: ignore[arg-type]


def _public_site(handler: BaseHTTPRequestHandler) -> None:
    if handler.path == "/start":
        send(handler, 302, headers={"Location": INTRANET})
    elif handler.path == "/through":
        send(handler, 302, headers={"Location": "http://intranet.example/bounce"})
    elif handler.path == "/robots.txt":
        send(handler, 200, b"User-agent: *\nDisallow: /private\n", {"Content-Type": "text/plain"})
    else:
        page(handler)


def _intranet_site(handler: BaseHTTPRequestHandler) -> None:
    if handler.path == "/bounce":  # back out to the public site
        send(handler, 302, headers={"Location": "http://www.public.example/end"})
    else:
        page(handler)


@pytest.fixture
def net() -> Iterator[Net]:
    with LoopServer(_public_site) as public, LoopServer(_intranet_site) as intranet:
        yield Net(public, intranet)


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[PageCache]:
    pages = PageCache(tmp_path / "pages.sqlite3")
    yield pages
    pages.close()


async def _cache_with(net: Net, cache: PageCache, url: str, **kwargs: object) -> FetchedPage:
    """Fetch ``url`` through the cache in a first run with ``kwargs``; it must succeed."""
    async with net.fetcher(**kwargs) as first_run:
        fetched = await CachingFetcher(first_run, cache).fetch(url)
    assert fetched.status == 200 and fetched.content == PAGE
    assert await cache.get(url) is not None
    return fetched


async def _live_error(net: Net, url: str, **kwargs: object) -> FetchError:
    """The error a fetcher with ``kwargs`` and no cache gives for ``url``."""
    async with net.fetcher(**kwargs) as live:
        with pytest.raises(FetchError) as caught:
            await live.fetch(url)
    return caught.value


async def _cached_error(net: Net, cache: PageCache, url: str, **kwargs: object) -> FetchError:
    async with net.fetcher(**kwargs) as second_run:
        fetcher = CachingFetcher(second_run, cache)
        with pytest.raises(FetchError) as caught:
            await fetcher.fetch(url)
    assert (fetcher.hits, fetcher.misses) == (0, 1)
    return caught.value


def _same(cached: FetchError, live: FetchError) -> None:
    assert type(cached) is type(live)
    assert (cached.message, cached.hint) == (live.message, live.hint)


async def test_a_page_cached_under_allow_hosts_is_refused_to_a_run_without_it(
    net: Net, cache: PageCache
) -> None:
    await _cache_with(net, cache, INTRANET, allow_hosts=["intranet.example"])
    assert net.intranet.hits == 1
    connects = len(net.backend.connects)

    refused = await _cached_error(net, cache, INTRANET)
    assert isinstance(refused, FetchBlocked)
    assert "non-public address" in refused.message
    _same(refused, await _live_error(net, INTRANET))
    assert net.intranet.hits == 1 and len(net.backend.connects) == connects  # never connected

    async with net.fetcher(allow_hosts=["intranet.example"]) as allowed_run:
        again = CachingFetcher(allowed_run, cache)
        assert (await again.fetch(INTRANET)).content == PAGE
    assert (again.hits, net.intranet.hits) == (1, 1)  # a run that allows it is served


@pytest.mark.parametrize(
    "hops",
    [
        ("http://www.public.example/start", INTRANET),
        (
            "http://www.public.example/through",
            "http://intranet.example/bounce",
            "http://www.public.example/end",
        ),
    ],
    ids=["ends-inside", "passes-through"],
)
async def test_every_redirect_hop_is_judged_by_the_current_policy(
    net: Net, cache: PageCache, hops: tuple[str, ...]
) -> None:
    start = hops[0]
    cached = await _cache_with(net, cache, start, allow_hosts=["intranet.example"])
    assert cached.hops == hops and cached.final_url == hops[-1]
    assert net.intranet.hits == 1

    refused = await _cached_error(net, cache, start)
    assert isinstance(refused, FetchBlocked)
    assert refused.message.startswith("refused redirect target")
    _same(refused, await _live_error(net, start))
    assert net.intranet.hits == 1  # the public site was asked again, the intranet never


async def test_a_stored_address_is_not_trusted_the_host_is_looked_up_again(
    net: Net, cache: PageCache
) -> None:
    url = "http://news.example/story"
    await _cache_with(net, cache, url)
    lookups = len(net.resolver.lookups)

    async with net.fetcher() as same_policy:  # still public: served, looked up, no request
        fetcher = CachingFetcher(same_policy, cache)
        assert (await fetcher.fetch(url)).content == PAGE
    assert fetcher.hits == 1 and net.public.hits == 1
    assert net.resolver.hosts()[lookups:] == ["news.example"]

    net.answers["news.example"] = [PRIVATE]  # the name now points inside
    refused = await _cached_error(net, cache, url)
    assert "non-public address" in refused.message
    _same(refused, await _live_error(net, url))
    assert net.intranet.hits == 0


async def test_a_page_cached_without_robots_is_checked_against_robots(
    net: Net, cache: PageCache
) -> None:
    url = "http://www.public.example/private/report"
    await _cache_with(net, cache, url)  # respect_robots=False
    refused = await _cached_error(net, cache, url, respect_robots=True)
    assert "robots.txt" in refused.message
    _same(refused, await _live_error(net, url, respect_robots=True))


async def test_a_page_cached_with_robots_is_served_to_a_run_that_respects_them(
    net: Net, cache: PageCache
) -> None:
    url = "http://www.public.example/public/report"
    cached = await _cache_with(net, cache, url, respect_robots=True)
    assert cached.robots_checked
    seen = net.public.hits
    async with net.fetcher(respect_robots=True) as polite:
        fetcher = CachingFetcher(polite, cache)
        assert await fetcher.fetch(url) == cached
    assert fetcher.hits == 1 and net.public.hits == seen


async def test_smaller_limits_of_the_current_run_apply(net: Net, cache: PageCache) -> None:
    start = "http://www.public.example/start"
    await _cache_with(net, cache, start, allow_hosts=["intranet.example"])
    for limits in ({"max_redirects": 0}, {"max_bytes": len(PAGE) - 1}):
        options: dict[str, object] = {"allow_hosts": ["intranet.example"], **limits}
        refused = await _cached_error(net, cache, start, **options)
        _same(refused, await _live_error(net, start, **options))


async def test_a_fetcher_that_cannot_judge_a_page_gets_none_from_the_cache(
    cache: PageCache,
) -> None:
    stored = FetchedPage(
        url="http://a.example/", final_url="http://a.example/", status=200,
        content_type="text/html", content=b"stored", hops=("http://a.example/",),
    )  # fmt: skip
    await cache.put(stored)

    class Plain:
        async def fetch(self, url: str) -> FetchedPage:
            return stored.model_copy(update={"content": b"fresh"})

    fetcher = CachingFetcher(Plain(), cache)
    assert (await fetcher.fetch("http://a.example/")).content == b"fresh"
    assert (fetcher.hits, fetcher.misses) == (0, 1)


async def test_pages_cached_before_hops_were_recorded(net: Net, tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:  # the page cache's first schema, without hops
        conn.executescript(
            """
            CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, content BLOB NOT NULL,
                                size INTEGER NOT NULL);
            CREATE TABLE pages (url TEXT PRIMARY KEY, final_url TEXT NOT NULL,
                                status INTEGER NOT NULL, content_type TEXT NOT NULL,
                                sha256 TEXT NOT NULL, fetched_at REAL NOT NULL);
            """
        )
        conn.execute("INSERT INTO blobs VALUES ('x', ?, ?)", (b"old body", 8))
        for url, final in [
            ("http://news.example/direct", "http://news.example/direct"),
            ("http://news.example/moved", INTRANET),  # redirected through unknown hops
        ]:
            conn.execute(
                "INSERT INTO pages VALUES (?, ?, 200, 'text/html', 'x', ?)",
                (url, final, 4_000_000_000.0 - 1),
            )
    cache = PageCache(path, clock=lambda: 4_000_000_000.0)
    async with net.fetcher(allow_hosts=["intranet.example"]) as fetcher:
        caching = CachingFetcher(fetcher, cache)
        assert (await caching.fetch("http://news.example/direct")).content == b"old body"
        assert (await caching.fetch("http://news.example/moved")).content == PAGE  # refetched
    assert (caching.hits, caching.misses) == (1, 1)
    moved = await cache.get("http://news.example/moved")
    assert moved is not None and moved.hops == ("http://news.example/moved",)
    cache.close()
