"""A content-addressed, SQLite-backed page cache, so a resumed or repeated run does not
fetch the same URL twice.

Two tables::

    blobs(sha256 PRIMARY KEY, content BLOB, size)          each distinct body once
    pages(url PRIMARY KEY, final_url, status, content_type, sha256, fetched_at,
          hops, robots_checked)

Pages are keyed by the URL that was asked for (not the final URL after redirects); many
pages may point at one blob when their bodies are byte-identical. Only successful (2xx)
pages are stored; everything else is ignored by :meth:`PageCache.put`. ``hops`` (the
redirect chain, JSON) and ``robots_checked`` record how the page was fetched, so a later
run can judge it by its own policy (``CachingFetcher``).

Freshness: a page is served while ``clock() - fetched_at <= ttl_s``. ``clock`` defaults
to ``time.time`` (wall time) because the cache outlives the process.

Eviction (simple on purpose): after every ``put``, while the total size of the stored
blobs exceeds ``max_bytes``, the page with the oldest ``fetched_at`` is deleted, then
every blob no page refers to. A body larger than ``max_bytes`` on its own is not stored.

The connection, lock, WAL, worker thread and TTL rule are ``deepresearch.cachedb``'s,
shared with ``deepresearch.llm.cache``. Use ``":memory:"`` for a throwaway cache.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from deepresearch.cachedb import CacheDB
from deepresearch.fetch.base import FetchedPage, Fetcher, PolicyFetcher

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
# added after the first release: rows from before have no hops and robots unknown
_COLUMNS = {
    "pages": {
        "hops": "TEXT NOT NULL DEFAULT '[]'",
        "robots_checked": "INTEGER NOT NULL DEFAULT 0",
    }
}

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
        self._max_bytes = max_bytes
        self._db = CacheDB(path, schema=_SCHEMA, columns=_COLUMNS, ttl_s=ttl_s, clock=clock)

    async def get(self, url: str) -> FetchedPage | None:
        """The stored page for ``url``, or None when missing or older than ``ttl_s``."""
        return await self._db.run(lambda conn: self._get(conn, url))

    async def put(self, page: FetchedPage) -> None:
        """Store ``page`` under ``page.url`` if its status is 2xx; then evict if needed."""
        if not 200 <= page.status < 300 or len(page.content) > self._max_bytes:
            return
        await self._db.write(lambda conn: self._put(conn, page))

    def close(self) -> None:
        self._db.close()

    def __len__(self) -> int:
        """How many pages are stored (fresh or not)."""
        row = self._db.read(lambda conn: conn.execute("SELECT COUNT(*) FROM pages").fetchone())
        return int(row[0])

    @property
    def total_bytes(self) -> int:
        """The summed size of the stored bodies."""
        return self._db.read(_total_bytes)

    def stale(self) -> tuple[int, int]:
        """Pages no run would be served any more (older than ``ttl_s``) and the bytes of
        the bodies only they use."""
        return self._db.read(lambda conn: self._stale(conn))

    def drop_stale(self) -> tuple[int, int]:
        """Delete the stale pages and the bodies only they used (``deepresearch gc``)."""
        return self._db.write_now(lambda conn: self._stale(conn, drop=True))

    def _stale(self, conn: sqlite3.Connection, *, drop: bool = False) -> tuple[int, int]:
        ttl = self._db.ttl_s
        if ttl is None:
            return 0, 0
        cutoff = self._db.now() - ttl
        count = int(
            conn.execute("SELECT COUNT(*) FROM pages WHERE fetched_at < ?", (cutoff,)).fetchone()[0]
        )
        freed = int(
            conn.execute(
                "SELECT COALESCE(SUM(size), 0) FROM blobs WHERE sha256 IN "
                "(SELECT sha256 FROM pages WHERE fetched_at < ?) AND sha256 NOT IN "
                "(SELECT sha256 FROM pages WHERE fetched_at >= ?)",
                (cutoff, cutoff),
            ).fetchone()[0]
        )
        if drop and count:
            conn.execute("DELETE FROM pages WHERE fetched_at < ?", (cutoff,))
            conn.execute(_DELETE_ORPHANS)
        return count, freed

    def _get(self, conn: sqlite3.Connection, url: str) -> FetchedPage | None:
        row = conn.execute(
            "SELECT p.final_url, p.status, p.content_type, p.fetched_at, p.hops, "
            "p.robots_checked, b.content "
            "FROM pages p JOIN blobs b ON b.sha256 = p.sha256 WHERE p.url = ?",
            (url,),
        ).fetchone()
        if row is None:
            return None
        final_url, status, content_type, fetched_at, hops, robots_checked, content = row
        if not self._db.fresh(float(fetched_at)):
            return None
        return FetchedPage(
            url=url,
            final_url=str(final_url),
            status=int(status),
            content_type=str(content_type),
            content=bytes(content),
            hops=_hops(hops),
            robots_checked=bool(robots_checked),
        )

    def _put(self, conn: sqlite3.Connection, page: FetchedPage) -> None:
        digest = hashlib.sha256(page.content).hexdigest()
        conn.execute(
            "INSERT OR IGNORE INTO blobs (sha256, content, size) VALUES (?, ?, ?)",
            (digest, page.content, len(page.content)),
        )
        conn.execute(
            "INSERT OR REPLACE INTO pages (url, final_url, status, content_type, sha256, "
            "fetched_at, hops, robots_checked) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                page.url,
                page.final_url,
                page.status,
                page.content_type,
                digest,
                self._db.now(),
                json.dumps(list(page.hops)),
                int(page.robots_checked),
            ),
        )
        conn.execute(_DELETE_ORPHANS)  # a replaced page may leave its old body
        self._evict(conn)

    def _evict(self, conn: sqlite3.Connection) -> None:
        """Drop the oldest pages (and then orphaned blobs) until within ``max_bytes``."""
        while _total_bytes(conn) > self._max_bytes:
            row = conn.execute(
                "SELECT url FROM pages ORDER BY fetched_at ASC, rowid ASC LIMIT 1"
            ).fetchone()
            if row is None:
                break
            conn.execute("DELETE FROM pages WHERE url = ?", (row[0],))
            conn.execute(_DELETE_ORPHANS)


def _total_bytes(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT COALESCE(SUM(size), 0) FROM blobs").fetchone()
    return int(row[0])


def _hops(stored: object) -> tuple[str, ...]:
    """The stored redirect chain; anything unreadable is "unknown" (empty)."""
    try:
        hops = json.loads(str(stored))
    except ValueError:
        return ()
    if not isinstance(hops, list) or not all(isinstance(hop, str) for hop in hops):
        return ()
    return tuple(hops)


class CachingFetcher:
    """A :class:`Fetcher` that answers from a :class:`PageCache` when it can.

    A fresh cached page is returned as is (``hits`` counts these) only when ``inner`` is a
    ``PolicyFetcher`` that admits it: the current run's policy (schemes, host rules,
    ``allow_hosts``, the address check on a fresh lookup, redirect limit, size cap,
    robots.txt) would allow fetching its URL and every redirect hop now. A page fetched
    under ``--allow-host`` is not served to a run without it. Otherwise ``inner`` fetches
    as if nothing were cached (so a refusal is the same error a live fetch gives), the page
    is stored (if 2xx) and returned (``misses``). Errors from ``inner`` (``FetchBlocked``,
    ``FetchError``) propagate and nothing is cached. Concurrent fetches of one URL through
    this instance are serialised, so the second one is a hit.
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
                if cached is not None and await self._admitted(cached):
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

    async def _admitted(self, page: FetchedPage) -> bool:
        # a fetcher that cannot judge a stored page by its own policy gets none
        return isinstance(self.inner, PolicyFetcher) and await self.inner.admits(page)
