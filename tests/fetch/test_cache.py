"""PageCache and CachingFetcher: a real HttpFetcher against the offline web (127.0.0.1)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.base import FetchedPage, Fetcher
from deepresearch.fetch.cache import CachingFetcher, PageCache
from deepresearch.fetch.http_fetcher import HttpFetcher
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.web import OfflineWeb

SAME_BODY = b"<!doctype html><title>Twin</title><p>The same bytes, twice.</p>"


class _Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def web(tmp_path: Path) -> Iterator[OfflineWeb]:
    twin_a, twin_b = tmp_path / "twin-a.html", tmp_path / "twin-b.html"
    twin_a.write_bytes(SAME_BODY)
    twin_b.write_bytes(SAME_BODY)
    documents = [
        CorpusDocument(id="alpha", title="Alpha", text="Alpha is the first letter."),
        CorpusDocument(id="twin-a", title="Twin", text="", source=twin_a),
        CorpusDocument(id="twin-b", title="Twin", text="", source=twin_b),
    ]
    with OfflineWeb(documents) as server:
        yield server


@pytest.fixture
async def http(web: OfflineWeb) -> AsyncIterator[HttpFetcher]:
    fetcher = HttpFetcher(
        allow_hosts=[f"{web.host}:{web.port}"], respect_robots=False, min_interval_s=0
    )
    async with fetcher:
        yield fetcher


def _count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def _page(url: str, body: bytes, status: int = 200) -> FetchedPage:
    return FetchedPage(
        url=url, final_url=url, status=status, content_type="text/html", content=body
    )


async def test_second_fetch_is_served_from_cache(
    web: OfflineWeb, http: HttpFetcher, tmp_path: Path
) -> None:
    cache = PageCache(tmp_path / "pages.sqlite")
    fetcher = CachingFetcher(http, cache)
    assert isinstance(fetcher, Fetcher)
    url = web.page_url("alpha")
    first = await fetcher.fetch(url)
    second = await fetcher.fetch(url)
    assert first.status == 200 and b"Alpha is the first letter." in first.content
    assert second == first
    assert web.page_hits("alpha") == 1
    assert (fetcher.hits, fetcher.misses) == (1, 1)
    cache.close()


async def test_concurrent_fetches_of_one_url_fetch_once(
    web: OfflineWeb, http: HttpFetcher, tmp_path: Path
) -> None:
    cache = PageCache(tmp_path / "pages.sqlite")
    fetcher = CachingFetcher(http, cache)
    url = web.page_url("alpha")
    pages = await asyncio.gather(*(fetcher.fetch(url) for _ in range(3)))
    assert len({page.content for page in pages}) == 1
    assert web.page_hits("alpha") == 1
    assert (fetcher.hits, fetcher.misses) == (2, 1)
    cache.close()


async def test_resumed_run_hits_the_same_file(
    web: OfflineWeb, http: HttpFetcher, tmp_path: Path
) -> None:
    path = tmp_path / "cache" / "pages.sqlite"
    first_run = PageCache(path)
    original = await CachingFetcher(http, first_run).fetch(web.page_url("alpha"))
    first_run.close()

    resumed = PageCache(path)
    fetcher = CachingFetcher(http, resumed)
    again = await fetcher.fetch(web.page_url("alpha"))
    assert again == original
    assert (fetcher.hits, fetcher.misses) == (1, 0)
    assert web.page_hits("alpha") == 1
    resumed.close()


async def test_identical_bodies_share_one_blob(
    web: OfflineWeb, http: HttpFetcher, tmp_path: Path
) -> None:
    path = tmp_path / "pages.sqlite"
    cache = PageCache(path)
    fetcher = CachingFetcher(http, cache)
    a = await fetcher.fetch(web.page_url("twin-a"))
    b = await fetcher.fetch(web.page_url("twin-b"))
    await fetcher.fetch(web.page_url("alpha"))
    assert a.content == b.content == SAME_BODY
    assert a.url != b.url
    assert _count(path, "pages") == 3
    assert _count(path, "blobs") == 2
    cached_b = await cache.get(web.page_url("twin-b"))
    assert cached_b is not None and cached_b.url == web.page_url("twin-b")
    assert cached_b.content == SAME_BODY
    cache.close()


async def test_expired_page_is_fetched_again(
    web: OfflineWeb, http: HttpFetcher, tmp_path: Path
) -> None:
    clock = _Clock()
    cache = PageCache(tmp_path / "pages.sqlite", ttl_s=60, clock=clock)
    fetcher = CachingFetcher(http, cache)
    url = web.page_url("alpha")
    await fetcher.fetch(url)
    clock.now += 60  # exactly ttl_s old: still fresh
    await fetcher.fetch(url)
    assert web.page_hits("alpha") == 1
    clock.now += 1
    assert await cache.get(url) is None
    await fetcher.fetch(url)
    assert web.page_hits("alpha") == 2
    await fetcher.fetch(url)  # refreshed, so a hit again
    assert web.page_hits("alpha") == 2
    assert (fetcher.hits, fetcher.misses) == (2, 2)
    cache.close()


async def test_not_found_is_not_cached(web: OfflineWeb, http: HttpFetcher, tmp_path: Path) -> None:
    path = tmp_path / "pages.sqlite"
    cache = PageCache(path)
    fetcher = CachingFetcher(http, cache)
    url = web.page_url("missing")
    for _ in range(2):
        with pytest.raises(FetchError):
            await fetcher.fetch(url)
    assert web.page_hits("missing") == 2
    assert (fetcher.hits, fetcher.misses) == (0, 2)
    assert _count(path, "pages") == 0
    assert _count(path, "blobs") == 0
    cache.close()


async def test_non_2xx_pages_are_not_stored(tmp_path: Path) -> None:
    cache = PageCache(tmp_path / "pages.sqlite")
    await cache.put(_page("http://example.test/gone", b"gone", status=404))
    await cache.put(_page("http://example.test/moved", b"", status=301))
    assert len(cache) == 0
    assert await cache.get("http://example.test/gone") is None
    cache.close()


async def test_policy_errors_propagate_and_are_not_cached(web: OfflineWeb, tmp_path: Path) -> None:
    cache = PageCache(tmp_path / "pages.sqlite")
    async with HttpFetcher(respect_robots=False, min_interval_s=0) as strict:
        fetcher = CachingFetcher(strict, cache)
        with pytest.raises(FetchBlocked):
            await fetcher.fetch(web.page_url("alpha"))
    assert web.page_hits("alpha") == 0
    assert len(cache) == 0
    cache.close()


async def test_eviction_drops_oldest_pages_and_orphan_blobs(tmp_path: Path) -> None:
    path = tmp_path / "pages.sqlite"
    clock = _Clock()
    cache = PageCache(path, max_bytes=250, clock=clock)
    for name in ("one", "two"):
        await cache.put(_page(f"http://example.test/{name}", name.encode() * 40))
        clock.now += 1
    assert len(cache) == 2
    assert cache.total_bytes == 3 * 40 * 2

    await cache.put(_page("http://example.test/three", b"x" * 100))
    assert await cache.get("http://example.test/one") is None  # the oldest went
    assert await cache.get("http://example.test/two") is not None
    assert await cache.get("http://example.test/three") is not None
    assert _count(path, "blobs") == 2
    assert cache.total_bytes == 220

    await cache.put(_page("http://example.test/huge", b"h" * 251))  # over the cap alone
    assert await cache.get("http://example.test/huge") is None
    assert len(cache) == 2
    cache.close()


async def test_replacing_a_page_drops_its_old_body(tmp_path: Path) -> None:
    path = tmp_path / "pages.sqlite"
    cache = PageCache(path)
    await cache.put(_page("http://example.test/a", b"old body"))
    await cache.put(_page("http://example.test/a", b"new body"))
    page = await cache.get("http://example.test/a")
    assert page is not None and page.content == b"new body"
    assert _count(path, "blobs") == 1
    cache.close()


def test_rejects_bad_settings(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        PageCache(tmp_path / "a.sqlite", ttl_s=-1)
    with pytest.raises(ValueError):
        PageCache(tmp_path / "b.sqlite", max_bytes=0)
