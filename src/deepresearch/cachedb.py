"""The SQLite plumbing every on-disk cache shares (the page cache, the model-reply cache).

``CacheDB`` opens one file (creating its folder) with one connection shared by worker
threads and serialised by a lock. A file is put in WAL mode (readers do not block the
writer) with a busy timeout, so two processes using one cache (a CLI run beside the
service) wait for each other instead of failing; ``":memory:"`` is a throwaway cache.
``run`` does SQLite work in a worker thread (``asyncio.to_thread``) so the event loop never
waits on the disk; ``write`` also commits (or rolls back). ``fresh`` is the TTL rule:
an entry stored at ``t`` is served while ``clock() - t <= ttl_s``; the clock is wall time
because a cache outlives the process. Schemas are ``CREATE ... IF NOT EXISTS``
statements; ``columns`` adds columns a newer version needs to a table an older one made.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

#: how long a write waits for another process's write to finish
BUSY_TIMEOUT_S = 10.0


class CacheDB:
    """One cache file; see the module docstring."""

    def __init__(
        self,
        path: Path | str,
        *,
        schema: Sequence[str],
        columns: Mapping[str, Mapping[str, str]] | None = None,
        ttl_s: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if ttl_s is not None and not ttl_s >= 0:
            raise ValueError("ttl_s must not be negative")
        self.ttl_s = ttl_s
        self._clock = clock
        memory = str(path) == ":memory:"
        if not memory:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock:
            if not memory:
                self._conn.execute("PRAGMA journal_mode=WAL")
            for statement in schema:
                self._conn.execute(statement)
            for table, wanted in (columns or {}).items():
                have = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
                for name, declaration in wanted.items():
                    if name not in have:
                        self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {declaration}")
            self._conn.commit()

    def now(self) -> float:
        return self._clock()

    def fresh(self, stored_at: float) -> bool:
        """True while an entry stored at ``stored_at`` is within the TTL (no TTL: always)."""
        return self.ttl_s is None or self._clock() - stored_at <= self.ttl_s

    def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` under the lock, in the calling thread."""
        with self._lock:
            return work(self._conn)

    def write_now(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` under the lock, committed, or rolled back if it raises."""
        with self._lock:
            try:
                result = work(self._conn)
            except BaseException:
                self._conn.rollback()
                raise
            self._conn.commit()
            return result

    async def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``read`` in a worker thread."""
        return await asyncio.to_thread(self.read, work)

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``write_now`` in a worker thread."""
        return await asyncio.to_thread(self.write_now, work)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
