"""A SQLite-backed cache of successful model replies.

A resumed or replayed run asks the same questions again; the cache answers them without
paying for a second call. Keys are the sha256 of (model name, system prompt, user prompt,
schema name), so a change to any prompt or to the model is a miss. Only replies that were
successful and valid are stored (the gateway decides that). SQLite work runs in a worker
thread (``asyncio.to_thread``) so the event loop never blocks on disk.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS model_replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    reply TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


class ResponseCache:
    """Model replies keyed by :meth:`key`. Use ``":memory:"`` for a throwaway cache."""

    def __init__(self, path: Path | str) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by the worker threads, serialised by a lock.
        self._conn = sqlite3.connect(str(path), check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock:
            if str(path) != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(_SCHEMA)
            self._conn.commit()

    @staticmethod
    def key(model: str, system: str, user: str, schema: str = "") -> str:
        """The cache key of one request."""
        payload = json.dumps([model, system, user, schema], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    async def get(self, key: str) -> str | None:
        """The stored reply for ``key``, or None."""
        return await asyncio.to_thread(self._get, key)

    async def put(self, key: str, reply: str, *, model: str = "") -> None:
        """Store (or replace) the reply for ``key``."""
        await asyncio.to_thread(self._put, key, reply, model)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __len__(self) -> int:
        with self._lock:
            row = self._conn.execute("SELECT COUNT(*) FROM model_replies").fetchone()
        return int(row[0])

    def _get(self, key: str) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT reply FROM model_replies WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    def _put(self, key: str, reply: str, model: str) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO model_replies (key, model, reply, created_at) "
                "VALUES (?, ?, ?, ?)",
                (key, model, reply, time.time()),
            )
            self._conn.commit()
