"""A SQLite-backed cache of successful model replies.

A resumed or replayed run asks the same questions again; the cache answers them without
paying for a second call. Keys are the sha256 of (model name, system prompt, user prompt,
schema name), so a change to any prompt or to the model is a miss. Only replies that were
successful and valid are stored (the gateway decides that). Replies do not expire. The
connection, lock, WAL and worker thread are ``deepresearch.cachedb``'s, shared with the
page cache, so the event loop never blocks on disk.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from deepresearch.cachedb import CacheDB

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
        self._db = CacheDB(path, schema=(_SCHEMA,))

    @staticmethod
    def key(model: str, system: str, user: str, schema: str = "") -> str:
        """The cache key of one request."""
        payload = json.dumps([model, system, user, schema], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    async def get(self, key: str) -> str | None:
        """The stored reply for ``key``, or None."""
        row = await self._db.run(
            lambda conn: conn.execute(
                "SELECT reply FROM model_replies WHERE key = ?", (key,)
            ).fetchone()
        )
        return None if row is None else str(row[0])

    async def put(self, key: str, reply: str, *, model: str = "") -> None:
        """Store (or replace) the reply for ``key``."""
        created_at = self._db.now()
        await self._db.write(
            lambda conn: conn.execute(
                "INSERT OR REPLACE INTO model_replies (key, model, reply, created_at) "
                "VALUES (?, ?, ?, ?)",
                (key, model, reply, created_at),
            )
        )

    def close(self) -> None:
        self._db.close()

    def __len__(self) -> int:
        row = self._db.read(
            lambda conn: conn.execute("SELECT COUNT(*) FROM model_replies").fetchone()
        )
        return int(row[0])
