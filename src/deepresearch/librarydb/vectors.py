"""Hybrid library search: the full-text ranking (``librarydb/search.py``) fused with the
items nearest the query by embedding, where the ``[embeddings]`` extra is installed.

Each item's vector (float32 bytes, ``library_vectors``) is written when the item enters
the library; items stored before are embedded on their owner's first hybrid search (or
by ``deepresearch library reindex``). Nearest items are a brute-force scan: an owner's
vectors are one normalized numpy matrix cached in the process (a few owners, least
recently used out) and checked against the database before every search by the count and
the largest id of the owner's rows, which change with every insert and delete because
rows are never updated and ids never reused. 100,000 items of 256 dimensions are 100 MB
and one scan takes a few milliseconds (docs/benchmarks.md).

The two rankings are fused by ``core.rank_fusion``; only items at least
``MIN_SIMILARITY`` from the query enter the embedding ranking, so a query about nothing
in the library still finds nothing. Filters apply to both rankings, and every query names
the owner: a cached matrix is the owner's own, and a hit is read back through SQL bound
to the owner and the filters."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, exists, func, select
from sqlalchemy.dialects import postgresql, sqlite

from deepresearch.core.rank_fusion import reciprocal_rank_fusion
from deepresearch.core.support import Embedder
from deepresearch.librarydb import search as _search
from deepresearch.librarydb.tables import (
    library_items,
    library_runs,
    library_sources,
    library_tags,
    library_vectors,
)
from deepresearch.models.library import LibraryHit, LibraryQuery

try:
    import numpy as np
except ImportError as exc:  # numpy comes with the [embeddings] extra (wordllama's)
    raise ImportError(
        "hybrid library search needs numpy: pip install 'deepresearch[embeddings]'"
    ) from exc

i, r, s, v = library_items, library_runs, library_sources, library_vectors

#: cosine similarity an item needs to enter the embedding ranking. On 600 Wikipedia lead
#: sentences WordLlama's best match for a query about none of them ("tokamak", "zzzz
#: qqqq") is 0.31-0.33, while an article's short description that shares no word with
#: its lead sentence scores a median 0.27 (0.55 for "College or university diploma" and
#: "Academic degree"), and a one-word topic its article 0.86. Below this bar a weak
#: paraphrase is missed rather than a query about nothing answered with noise.
MIN_SIMILARITY = 0.35
#: how deep each ranking goes into the fusion
POOL = 100
#: items embedded per call of the model
BATCH = 512
#: owners whose matrices one process keeps
MAX_CACHED_OWNERS = 4

#: filters on a run (its row or tags): kept by a small query of the owner's runs and
#: the matrix's run of each row; the others (domain, kind) go through ``search._filtered``
_RUN_FILTERS = ("since", "until", "run", "tag", "recipe", "collection")
_ITEM_FILTERS = ("domain", "kind")


def embed_missing(
    conn: Connection, owner: str, embedder: Embedder, *, run_id: str | None = None
) -> int:
    """Write the vector of each of ``owner``'s items (of run ``run_id``, else all) that
    has none; how many."""
    stmt = (
        select(i.c.id, i.c.run_id, i.c.text)
        .where(i.c.owner == owner, ~exists().where(v.c.item == i.c.id))
        .order_by(i.c.id)
    )
    if run_id is not None:
        stmt = stmt.where(i.c.run_id == run_id)
    rows = conn.execute(stmt).all()
    # two first searches at once on PostgreSQL may embed the same items: one row wins
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    add = dialect.insert(v).on_conflict_do_nothing(index_elements=["item"])
    for start in range(0, len(rows), BATCH):
        chunk = rows[start : start + BATCH]
        vectors = embedder.embed([row.text for row in chunk])
        conn.execute(
            add,
            [
                {
                    "item": row.id,
                    "owner": owner,
                    "run_id": row.run_id,
                    "vector": np.asarray(vector, dtype=np.float32).tobytes(),
                }
                for row, vector in zip(chunk, vectors, strict=True)
            ],
        )
    return len(rows)


def has_missing(conn: Connection, owner: str) -> bool:
    """Has ``owner`` an item without a vector (stored before hybrid search, or while the
    extra was not installed)? Two index counts: a vector goes with its item."""
    items = conn.execute(select(func.count()).where(i.c.owner == owner)).scalar_one()
    vectors = conn.execute(select(func.count()).where(v.c.owner == owner)).scalar_one()
    return int(items) != int(vectors)


@dataclass(frozen=True)
class OwnerMatrix:
    """An owner's vectors, normalized, one row an item; ``count`` and ``last`` (the
    largest ``library_vectors.id``) say which rows it holds; ``runs`` is each row's run
    as an index into ``run_ids``."""

    count: int
    last: int
    ids: np.ndarray[Any, np.dtype[np.int64]]
    items: np.ndarray[Any, np.dtype[np.int64]]
    vectors: np.ndarray[Any, np.dtype[np.float32]]
    runs: np.ndarray[Any, np.dtype[np.int32]]
    run_ids: tuple[str, ...]

    def run_mask(self, kept: set[str]) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """True for the rows of the runs ``kept``."""
        codes = [code for code, run_id in enumerate(self.run_ids) if run_id in kept]
        return np.isin(self.runs, np.asarray(codes, dtype=np.int32))


def _stacked(rows: Sequence[Any], run_ids: tuple[str, ...] = ()) -> OwnerMatrix:
    """Rows of ``library_vectors`` (id, item, run_id, vector) as one matrix, their runs
    coded after ``run_ids``."""
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        none = np.zeros(0, dtype=np.int32)
        return OwnerMatrix(0, 0, empty, empty, np.zeros((0, 0), dtype=np.float32), none, run_ids)
    code = {run_id: n for n, run_id in enumerate(run_ids)}
    runs = np.fromiter(
        (code.setdefault(row.run_id, len(code)) for row in rows), dtype=np.int32, count=len(rows)
    )
    ids = np.fromiter((row.id for row in rows), dtype=np.int64, count=len(rows))
    items = np.fromiter((row.item for row in rows), dtype=np.int64, count=len(rows))
    flat = np.frombuffer(b"".join(row.vector for row in rows), dtype=np.float32)
    vectors = flat.reshape(len(rows), -1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    normalized = (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)
    return OwnerMatrix(len(rows), int(ids[-1]), ids, items, normalized, runs, tuple(code))


def _joined(a: OwnerMatrix, b: OwnerMatrix) -> OwnerMatrix:
    """``b`` (stacked with ``a.run_ids``) after ``a``."""
    if a.count == 0:
        return b
    if b.count == 0:
        return a
    return OwnerMatrix(
        a.count + b.count,
        b.last,
        np.concatenate([a.ids, b.ids]),
        np.concatenate([a.items, b.items]),
        np.vstack([a.vectors, b.vectors]),
        np.concatenate([a.runs, b.runs]),
        b.run_ids,
    )


class VectorIndex:
    """The matrices of the last few owners searched, each checked against the database
    before use (see the module docstring); safe across threads."""

    def __init__(self, max_owners: int = MAX_CACHED_OWNERS) -> None:
        self._max = max_owners
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, OwnerMatrix] = OrderedDict()

    def matrix(self, conn: Connection, owner: str) -> OwnerMatrix:
        """``owner``'s vectors as they are in the database now."""
        count, last = conn.execute(
            select(func.count(), func.coalesce(func.max(v.c.id), 0)).where(v.c.owner == owner)
        ).one()
        with self._lock:
            cached = self._cache.get(owner)
        if cached is not None and (cached.count, cached.last) == (count, last):
            found = cached
        else:
            found = self._load(conn, owner, cached, int(count))
        with self._lock:
            self._cache[owner] = found
            self._cache.move_to_end(owner)
            while len(self._cache) > self._max:
                self._cache.popitem(last=False)
        return found

    @staticmethod
    def _load(conn: Connection, owner: str, cached: OwnerMatrix | None, count: int) -> OwnerMatrix:
        def rows_after(last: int, run_ids: tuple[str, ...] = ()) -> OwnerMatrix:
            return _stacked(
                conn.execute(
                    select(v.c.id, v.c.item, v.c.run_id, v.c.vector)
                    .where(v.c.owner == owner, v.c.id > last)
                    .order_by(v.c.id)
                ).all(),
                run_ids,
            )

        if cached is not None and cached.count > 0:
            # only rows added since: append them (ids only grow); a delete: load all
            added = rows_after(cached.last, cached.run_ids)
            if cached.count + added.count == count:
                return _joined(cached, added)
        return rows_after(0)


def hybrid_search(
    conn: Connection,
    owner: str,
    query: LibraryQuery,
    embedder: Embedder,
    index: VectorIndex,
) -> list[LibraryHit]:
    """``owner``'s items for ``query``: the full-text ranking and the embedding ranking
    fused, best first, at most ``query.limit``."""
    pool = max(POOL, query.limit)
    text_hits = _search.search(conn, owner, query.model_copy(update={"limit": pool}))
    near = nearest(conn, owner, query, embedder, index, pool)
    by_key = {_key(hit): hit for hit in text_hits}
    vector_ranking = []
    for hit in _hits(conn, owner, query, near):
        by_key.setdefault(_key(hit), hit)
        vector_ranking.append(_key(hit))
    fused = reciprocal_rank_fusion([[_key(hit) for hit in text_hits], vector_ranking])
    return [by_key[key] for key, _ in fused[: query.limit]]


def _key(hit: LibraryHit) -> tuple[str, str, str]:
    return (hit.run.run_id, hit.kind, hit.item_id)


def nearest(
    conn: Connection,
    owner: str,
    query: LibraryQuery,
    embedder: Embedder,
    index: VectorIndex,
    pool: int,
) -> list[int]:
    """The ids of ``owner``'s items nearest ``query.text`` that pass its filters and
    ``MIN_SIMILARITY``, nearest first, at most ``pool``."""
    matrix = index.matrix(conn, owner)
    if matrix.count == 0:
        return []
    wanted = np.asarray(embedder.embed([query.text])[0], dtype=np.float32)
    norm = float(np.linalg.norm(wanted))
    if norm == 0.0 or wanted.shape[0] != matrix.vectors.shape[1]:
        return []
    scores = matrix.vectors @ (wanted / norm)
    if any(getattr(query, name) is not None for name in _RUN_FILTERS):
        kept = matrix.run_mask(_kept_runs(conn, owner, query))
        scores = np.where(kept, scores, -np.inf)
    if any(getattr(query, name) is not None for name in _ITEM_FILTERS):
        allowed = np.fromiter(_filtered_ids(conn, owner, query), dtype=np.int64)
        scores = np.where(np.isin(matrix.items, allowed), scores, -np.inf)
    chosen = np.flatnonzero(scores >= MIN_SIMILARITY)
    if chosen.size > pool:
        chosen = chosen[np.argpartition(-scores[chosen], pool - 1)[:pool]]
    # nearest first; equal scores by item id, so a search is repeatable
    order = chosen[np.lexsort((matrix.items[chosen], -scores[chosen]))]
    return [int(item) for item in matrix.items[order]]


def _kept_runs(conn: Connection, owner: str, query: LibraryQuery) -> set[str]:
    """``owner``'s runs that pass ``query``'s run filters (``search._filtered``'s rules
    for them, on the runs alone)."""
    stmt = select(r.c.run_id).where(r.c.owner == owner)
    if query.since is not None:
        stmt = stmt.where(r.c.finished_at >= query.since)
    if query.until is not None:
        stmt = stmt.where(r.c.finished_at < query.until)
    if query.run is not None:
        stmt = stmt.where(r.c.run_id == query.run)
    if query.recipe is not None:
        stmt = stmt.where(r.c.recipe == query.recipe)
    if query.collection is not None:
        stmt = stmt.where(r.c.collection == query.collection)
    if query.tag is not None:
        t = library_tags
        stmt = stmt.where(
            exists().where(t.c.owner == owner, t.c.run_id == r.c.run_id, t.c.tag == query.tag)
        )
    return set(conn.execute(stmt).scalars())


def _filtered_ids(conn: Connection, owner: str, query: LibraryQuery) -> list[int]:
    """The ids of ``owner``'s items that pass every filter of ``query``."""
    stmt = select(i.c.id).select_from(_search.hits_from()).where(i.c.owner == owner)
    return list(conn.execute(_search._filtered(stmt, owner, query)).scalars())


def _hits(conn: Connection, owner: str, query: LibraryQuery, ids: list[int]) -> list[LibraryHit]:
    """The hits of items ``ids``, in that order, read through the owner and the filters
    again (an item removed since the matrix was read is left out)."""
    if not ids:
        return []
    stmt = (
        select(i.c.id, *_search.HIT_COLUMNS)
        .select_from(_search.hits_from())
        # ``owner || ''``: still bound to the owner, but through the id's primary key,
        # not the owner's index (SQLite would otherwise walk every item of the owner)
        .where((i.c.owner + "") == owner, i.c.id.in_(ids))
    )
    rows = {row.id: row._mapping for row in conn.execute(_search._filtered(stmt, owner, query))}
    tags = _search.run_tags(conn, owner, sorted({m["run_id"] for m in rows.values()}))
    return [_search._hit(rows[item], query, tags) for item in ids if item in rows]
