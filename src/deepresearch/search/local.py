"""Search a local folder of documents (.md, .txt, .html/.htm, .pdf, .docx) with SQLite FTS5.

The index lives in one SQLite file: ``docs`` is an FTS5 table (path, title, text) ranked
with ``bm25()``, ``files`` remembers each file's mtime and size so re-indexing only reads
what changed and drops what was deleted. Queries are free text: they are cut into words
and OR-ed as quoted FTS5 strings, so no user input can form FTS5 syntax.

Every hit carries the stored full text as ``content`` (capped), so the run does not fetch
``file://`` URLs. SQLite work runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from deepresearch.errors import ConfigError, ProviderUnavailable
from deepresearch.fetch.documents import DOCUMENT_SUFFIXES, read_document
from deepresearch.fetch.extract import ExtractedDoc
from deepresearch.models import SearchHit

SUFFIXES = DOCUMENT_SUFFIXES
#: stored text per document; the run applies its own, smaller ``max_text_chars`` later
MAX_CONTENT_CHARS = 200_000
MAX_QUERY_TERMS = 32
_WORD = re.compile(r"\w+")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    doc_id INTEGER,
    published TEXT
);
CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(
    path UNINDEXED, title, text, tokenize = 'porter unicode61 remove_diacritics 2'
);
"""

# bm25 weights: path 0 (not indexed), title 4, text 1
_SEARCH = """
SELECT docs.path, docs.title, docs.text, snippet(docs, 2, '', '', ' … ', 32),
       bm25(docs, 0.0, 4.0, 1.0) AS score, files.published
FROM docs LEFT JOIN files ON files.doc_id = docs.rowid
WHERE docs MATCH ?
ORDER BY score
LIMIT ?
"""


@dataclass(frozen=True)
class IndexStats:
    """What one indexing pass did."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    #: unreadable (a damaged PDF) or without text; retried only once the file changes
    skipped: int = 0

    @property
    def indexed(self) -> int:
        """Documents in the index after the pass."""
        return self.added + self.updated + self.unchanged


def fts_query(text: str) -> str:
    """Free text → an FTS5 MATCH expression that cannot be a syntax error: the words of
    ``text`` (at most MAX_QUERY_TERMS, duplicates dropped), each quoted, joined by OR.
    Returns "" when ``text`` has no words."""
    terms = dict.fromkeys(word.lower() for word in _WORD.findall(text))
    return " OR ".join(f'"{term}"' for term in list(terms)[:MAX_QUERY_TERMS])


class LocalSearch:
    """The ``local`` search provider over ``corpus_dir``, indexed into ``index_path``."""

    name = "local"
    supports_operators = False

    def __init__(self, corpus_dir: Path, index_path: Path) -> None:
        self.corpus_dir = Path(corpus_dir).expanduser().resolve()
        self.index_path = Path(index_path).expanduser()
        self._indexed = False
        self._lock = asyncio.Lock()

    # --- indexing ----------------------------------------------------------------------

    async def index(self) -> IndexStats:
        """Bring the index up to date with the folder (in a worker thread)."""
        async with self._lock:
            return await asyncio.to_thread(self.build_index)

    def build_index(self) -> IndexStats:
        """Index new and changed files, drop deleted ones. Raises ConfigError when the
        folder does not exist, ProviderUnavailable when the index cannot be written."""
        if not self.corpus_dir.is_dir():
            raise ConfigError(
                f"corpus folder not found: {self.corpus_dir}",
                hint="point corpus_dir at a folder of .md, .txt, .html, .pdf or .docx files",
            )
        try:
            stats = self._build()
        except (sqlite3.Error, OSError) as exc:
            raise ProviderUnavailable(
                f"could not update the local search index at {self.index_path}",
                provider=self.name,
            ) from exc
        self._indexed = True
        return stats

    def _build(self) -> IndexStats:
        counts = {"added": 0, "updated": 0, "removed": 0, "unchanged": 0, "skipped": 0}
        with closing(self._connect()) as db, db:
            known = {
                row[0]: (row[1], row[2], row[3])
                for row in db.execute("SELECT path, mtime_ns, size, doc_id FROM files")
            }
            seen: set[str] = set()
            for path in self._walk():
                key = str(path)
                seen.add(key)
                try:
                    stat = path.stat()
                except OSError:
                    continue
                previous = known.get(key)
                if previous is not None and previous[:2] == (stat.st_mtime_ns, stat.st_size):
                    counts["unchanged" if previous[2] is not None else "skipped"] += 1
                    continue
                if previous is not None and previous[2] is not None:
                    db.execute("DELETE FROM docs WHERE rowid = ?", (previous[2],))
                doc = _read(path)
                doc_id = None
                if doc is not None:
                    cursor = db.execute(
                        "INSERT INTO docs (path, title, text) VALUES (?, ?, ?)",
                        (key, doc.title or path.name, doc.text),
                    )
                    doc_id = cursor.lastrowid
                published = doc.published.isoformat() if doc and doc.published else None
                db.execute(
                    "INSERT OR REPLACE INTO files (path, mtime_ns, size, doc_id, published) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (key, stat.st_mtime_ns, stat.st_size, doc_id, published),
                )
                outcome = "added" if previous is None else "updated"
                counts[outcome if doc is not None else "skipped"] += 1
            for key, (_, _, doc_id) in known.items():
                if key not in seen:
                    db.execute("DELETE FROM files WHERE path = ?", (key,))
                    if doc_id is not None:
                        db.execute("DELETE FROM docs WHERE rowid = ?", (doc_id,))
                    counts["removed"] += 1
        return IndexStats(**counts)

    def _walk(self) -> Iterator[Path]:
        """Indexable files under the corpus folder; hidden files and folders are skipped,
        symlinked folders are not followed."""
        for root, dirs, files in os.walk(self.corpus_dir):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                path = Path(root, name)
                if not name.startswith(".") and path.suffix.lower() in SUFFIXES:
                    yield path

    def _connect(self) -> sqlite3.Connection:
        self.index_path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.index_path, timeout=10.0)
        db.executescript(_SCHEMA)
        return db

    def indexed_documents(self) -> int | None:
        """How many documents the index holds (None: not indexed yet), read only: the
        folder is not indexed by asking (``deepresearch doctor``)."""
        if not self.index_path.is_file():
            return None
        uri = f"{self.index_path.resolve().as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True, timeout=10.0)) as db:
            return int(db.execute("SELECT count(*) FROM docs").fetchone()[0])

    # --- searching ---------------------------------------------------------------------

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """At most ``limit`` documents matching any word of ``query``, best bm25 first.
        The first search indexes the folder when ``index()`` has not run yet."""
        if limit < 1:
            return []
        async with self._lock:
            if not self._indexed:
                await asyncio.to_thread(self.build_index)
        expression = fts_query(query)
        if not expression:
            return []
        try:
            rows = await asyncio.to_thread(self._query, expression, limit)
        except sqlite3.Error as exc:
            raise ProviderUnavailable(
                "the local search index could not be read", provider=self.name
            ) from exc
        if not rows:
            return []
        best = max(-rows[0][4], 1e-9)
        return [
            SearchHit(
                url=Path(path).as_uri(),
                title=title,
                snippet=snippet.strip() or text[:300].strip(),
                provider=self.name,
                query=query,
                rank=rank,
                score=min(1.0, max(-raw_score, 1e-9) / best),
                published=datetime.fromisoformat(published) if published else None,
                content=text,
            )
            for rank, (path, title, text, snippet, raw_score, published) in enumerate(rows)
        ]

    def _query(self, expression: str, limit: int) -> list[tuple[str, str, str, str, float, str]]:
        with closing(self._connect()) as db:
            cursor = db.execute(_SEARCH, (expression, limit))
            return list(cursor.fetchall())


def _read(path: Path) -> ExtractedDoc | None:
    """The document's text and title, or None when it cannot be read or has no text."""
    return read_document(path, MAX_CONTENT_CHARS)
