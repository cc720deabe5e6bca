"""The SQLite plumbing both caches share: WAL file, schema and added columns, the TTL
rule, commit or roll back, and a connection used from worker threads."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from deepresearch.cachedb import CacheDB

SCHEMA = ("CREATE TABLE IF NOT EXISTS items (key TEXT PRIMARY KEY, stored_at REAL NOT NULL)",)


def _insert(key: str) -> object:
    return lambda conn: conn.execute("INSERT INTO items VALUES (?, 0)", (key,))


def _count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM items").fetchone()[0])


async def test_a_file_cache_is_wal_in_a_created_folder_and_survives_reopening(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep" / "folder" / "cache.sqlite3"
    db = CacheDB(path, schema=SCHEMA)
    await db.write(_insert("a"))  # type: ignore[arg-type]
    assert db.read(lambda conn: conn.execute("PRAGMA journal_mode").fetchone()[0]) == "wal"
    db.close()
    reopened = CacheDB(path, schema=SCHEMA)
    assert await reopened.run(_count) == 1
    reopened.close()


async def test_a_failed_write_is_rolled_back(tmp_path: Path) -> None:
    db = CacheDB(tmp_path / "c.sqlite3", schema=SCHEMA)

    def half_then_fail(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO items VALUES ('half', 0)")
        raise RuntimeError("disk full, say")

    with pytest.raises(RuntimeError):
        await db.write(half_then_fail)
    await db.write(_insert("b"))  # type: ignore[arg-type]
    assert db.read(lambda conn: [r[0] for r in conn.execute("SELECT key FROM items")]) == ["b"]
    db.close()


def test_columns_a_newer_version_needs_are_added_once(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    CacheDB(path, schema=SCHEMA).close()
    columns = {"items": {"note": "TEXT NOT NULL DEFAULT ''"}}
    for _ in range(2):
        db = CacheDB(path, schema=SCHEMA, columns=columns)
        names = db.read(lambda conn: [row[1] for row in conn.execute("PRAGMA table_info(items)")])
        assert names == ["key", "stored_at", "note"]
        db.close()


def test_the_ttl_rule() -> None:
    now = [1_000.0]
    db = CacheDB(":memory:", schema=SCHEMA, ttl_s=60, clock=lambda: now[0])
    assert db.fresh(940.0) and not db.fresh(939.9)
    assert db.now() == 1_000.0
    forever = CacheDB(":memory:", schema=SCHEMA)
    assert forever.fresh(-1e12)
    with pytest.raises(ValueError):
        CacheDB(":memory:", schema=SCHEMA, ttl_s=-1)
    db.close()
    forever.close()
