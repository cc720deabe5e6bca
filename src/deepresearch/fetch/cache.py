"""A content-addressed, SQLite-backed page cache, so a resumed or repeated run does not
fetch the same URL twice.

Two tables::

    blobs(sha256 PRIMARY KEY, content BLOB, size)          each distinct body once
    pages(url PRIMARY KEY, final_url, status, content_type, sha256, fetched_at)

Pages are keyed by the URL that was asked for (not the final URL after redirects); many
pages may point at one blob when their bodies are byte-identical. Only successful (2xx)
pages are stored; everything else is ignored by :meth:`PageCache.put`.

Freshness: a page is served while ``clock() - fetched_at <= ttl_s``. ``clock`` defaults
to ``time.time`` (wall time) because the cache outlives the process.

Eviction (simple on purpose): after every ``put``, while the total size of the stored
blobs exceeds ``max_bytes``, the page with the oldest ``fetched_at`` is deleted, then
every blob no page refers to. A body larger than ``max_bytes`` on its own is not stored.

SQLite work runs in a worker thread (``asyncio.to_thread``) on one connection serialised
by a lock, like ``deepresearch.llm.cache``. Use ``":memory:"`` for a throwaway cache.
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from deepresearch.fetch.base import FetchedPage, Fetcher

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS blobs (
        sha256 TEXT PRIMARY KEY,
        content BLOB NOT NULL,
        size INTEGER NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS pages (
        url TEXT PRIMARY KEY,
        final_url TEXT NOT NULL,
        status INTEGER NOT NULL,
        content_type TEXT NOT NULL,
        sha256 TEXT NOT NULL REFERENCES blobs (sha256),
        fetched_at REAL NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS pages_fetched_at ON pages (fetched_at)",
    "CREATE INDEX IF NOT EXISTS pages_sha256 ON pages (sha256)",
)

_DELETE_ORPHANS = "DELETE FROM blobs WHERE sha256 NOT IN (SELECT sha256 FROM pages)"


class PageCache:
    """Fetched pages by URL, bodies stored once by sha256. See the module docstring."""

    def __init__(
        self,
        path: Path | str,
        *,
        ttl_s: float = 86_400,
        max_bytes: int = 500_000_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if ttl_s < 0 or max_bytes < 1:
            raise ValueError("ttl_s must not be negative and max_bytes must be positive")
        self._ttl_s = ttl_s
        self._max_bytes = max_bytes
        self._clock = clock
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by the worker threads, serialised by a lock.
        self._conn = sqlite3.connect(str(path), check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock:
            if str(path) != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
            for statement in _SCHEMA:
                self._conn.execute(statement)
            self._conn.commit()

    async def get(self, url: str) -> FetchedPage | None:
        """The stored page for ``url``, or None when missing or older than ``ttl_s``."""
        return await asyncio.to_thread(self._get, url)

    async def put(self, page: FetchedPage) -> None:
        """Store ``page`` under ``page.url`` if its status is 2xx; then evict if needed."""
        await asyncio.to_thread(self._put, page)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __len__(self) -> int:
        """How many pages are stored (fresh or not)."""
        with self._lock:
            row = self._conn.execute("SELECT COUNT(*) FROM pages").fetchone()
        return int(row[0])

    @property
    def total_bytes(self) -> int:
        """The summed size of the stored bodies."""
        with self._lock:
            return self._total_bytes()

    def _total_bytes(self) -> int:
        row = self._conn.execute("SELECT COALESCE(SUM(size), 0) FROM blobs").fetchone()
        return int(row[0])

    def _get(self, url: str) -> FetchedPage | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT p.final_url, p.status, p.content_type, p.fetched_at, b.content "
                "FROM pages p JOIN blobs b ON b.sha256 = p.sha256 WHERE p.url = ?",
                (url,),
            ).fetchone()
        if row is None:
            return None
        final_url, status, content_type, fetched_at, content = row
        if self._clock() - float(fetched_at) > self._ttl_s:
            return None
        return FetchedPage(
            url=url,
            final_url=str(final_url),
            status=int(status),
            content_type=str(content_type),
            content=bytes(content),
        )

    def _put(self, page: FetchedPage) -> None:
        if not 200 <= page.status < 300 or len(page.content) > self._max_bytes:
            return
        digest = hashlib.sha256(page.content).hexdigest()
        with self._lock:
            self._conn.execute(
                "INSERT OR IGNORE INTO blobs (sha256, content, size) VALUES (?, ?, ?)",
                (digest, page.content, len(page.content)),
            )
            self._conn.execute(
                "INSERT OR REPLACE INTO pages "
                "(url, final_url, status, content_type, sha256, fetched_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (page.url, page.final_url, page.status, page.content_type, digest, self._clock()),
            )
            self._conn.execute(_DELETE_ORPHANS)  # a replaced page may leave its old body
            self._evict()
            self._conn.commit()

    def _evict(self) -> None:
        """Drop the oldest pages (and then orphaned blobs) until within ``max_bytes``."""
        while self._total_bytes() > self._max_bytes:
            row = self._conn.execute(
                "SELECT url FROM pages ORDER BY fetched_at ASC, rowid ASC LIMIT 1"
            ).fetchone()
            if row is None:
                break
            self._conn.execute("DELETE FROM pages WHERE url = ?", (row[0],))
            self._conn.execute(_DELETE_ORPHANS)


class CachingFetcher:
    """A :class:`Fetcher` that answers from a :class:`PageCache` when it can.

    A fresh cached page is returned as is (``hits`` counts these); otherwise ``inner``
    fetches, the page is stored (if 2xx) and returned (``misses``). Errors from ``inner``
    (``FetchBlocked``, ``FetchError``) propagate and nothing is cached. Concurrent fetches
    of one URL through this instance are serialised, so the second one is a hit.
    """

    def __init__(self, inner: Fetcher, cache: PageCache) -> None:
        self.inner = inner
        self.cache = cache
        self.hits = 0
        self.misses = 0
        # per-URL lock and how many fetches use it; dropped when the last one leaves
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    async def fetch(self, url: str) -> FetchedPage:
        """Fetch ``url``; raise FetchBlocked (policy) or FetchError (anything else)."""
        lock, users = self._locks.get(url, (asyncio.Lock(), 0))
        self._locks[url] = (lock, users + 1)
        try:
            async with lock:
                cached = await self.cache.get(url)
                if cached is not None:
                    self.hits += 1
                    return cached
                self.misses += 1
                page = await self.inner.fetch(url)
                await self.cache.put(page)
                return page
        finally:
            _, users = self._locks[url]
            if users <= 1:
                del self._locks[url]
            else:
                self._locks[url] = (lock, users - 1)
