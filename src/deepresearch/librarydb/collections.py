"""Collections of your own documents in the library (``library import``): each one a row
of ``library_runs`` with its name in ``collection`` (so search, ``show``, tags and removal
treat it like a run), its documents as sources with their stored text, and each
document's passages as items of kind ``document`` (``core.library_query.passages``), which
the full-text index covers like quotes. Every function works inside the caller's
transaction and on one owner's rows only."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from deepresearch.core.library_query import passages
from deepresearch.errors import InvalidInput, RunNotFound
from deepresearch.librarydb.tables import library_items, library_runs, library_sources
from deepresearch.models.library import CollectionSummary, LibraryDocument
from deepresearch.sqldb import aware, utcnow

#: the recipe and kind a collection's row carries (a collection is no recipe's run)
COLLECTION_KIND = "collection"


def no_collection(name: str) -> RunNotFound:
    """The one error for a collection that is not the caller's, whether it exists or not."""
    return RunNotFound(
        f"no collection {name!r} in your library",
        hint="list yours with: deepresearch library collection list",
    )


def collection_run(conn: Connection, owner: str, name: str) -> str | None:
    """The id of ``owner``'s collection ``name``, or None."""
    found = conn.execute(
        select(library_runs.c.run_id).where(
            library_runs.c.owner == owner, library_runs.c.collection == name
        )
    ).scalar()
    return str(found) if found is not None else None


def refuse_taken(conn: Connection, owner: str, name: str) -> None:
    if collection_run(conn, owner, name) is not None:
        raise InvalidInput(
            f"you already have a collection {name!r}",
            hint="choose another name, or remove it first: deepresearch library collection rm",
        )


def insert_collection(
    conn: Connection,
    owner: str,
    run_id: str,
    name: str,
    documents: Sequence[LibraryDocument],
    now: datetime,
) -> list[dict[str, Any]]:
    """Write the collection's row, sources and passages; the page-text rows to store
    (the caller inserts them once, deduplicated)."""
    conn.execute(
        insert(library_runs).values(
            owner=owner,
            run_id=run_id,
            recipe=COLLECTION_KIND,
            question=name,
            title=name,
            kind=COLLECTION_KIND,
            finished_at=now,
            added_at=now,
            collection=name,
        )
    )
    sources, items, texts = [], [], {}
    for doc in documents:
        digest = hashlib.sha256(doc.text.encode("utf-8")).hexdigest()
        texts[digest] = doc.text
        source_id = "d" + hashlib.sha256(doc.path.encode("utf-8")).hexdigest()[:15]
        sources.append(
            {
                "owner": owner,
                "run_id": run_id,
                "source_id": source_id,
                "url": _uri(doc.path),
                "title": doc.title,
                "domain": "",
                "kind": doc.kind,
                "text_sha256": digest,
                "fetched_at": now,
            }
        )
        for n, passage in enumerate(passages(doc.text)):
            items.append(
                {
                    "owner": owner,
                    "run_id": run_id,
                    "kind": "document",
                    "item_id": f"{source_id}-{n}",
                    "source_id": source_id,
                    "text": passage,
                    "claim": doc.title,
                    "confidence": None,
                    "detail": {"path": doc.path},
                }
            )
    conn.execute(insert(library_sources), sources)
    if items:
        conn.execute(insert(library_items), items)
    return [{"sha256": k, "text": v, "chars": len(v)} for k, v in texts.items()]


def rename(conn: Connection, owner: str, old: str, new: str) -> None:
    run_id = collection_run(conn, owner, old)
    if run_id is None:
        raise no_collection(old)
    if new != old:
        refuse_taken(conn, owner, new)
        conn.execute(
            update(library_runs)
            .where(library_runs.c.owner == owner, library_runs.c.run_id == run_id)
            .values(collection=new, question=new, title=new)
        )


def listed(conn: Connection, owner: str) -> list[CollectionSummary]:
    """``owner``'s collections by name, with how many documents each holds."""
    docs = (
        select(func.count())
        .where(library_sources.c.owner == owner, library_sources.c.run_id == library_runs.c.run_id)
        .scalar_subquery()
    )
    rows = conn.execute(
        select(library_runs.c.collection, library_runs.c.run_id, library_runs.c.added_at, docs)
        .where(library_runs.c.owner == owner, library_runs.c.collection.is_not(None))
        .order_by(library_runs.c.collection)
    ).all()
    return [
        CollectionSummary(
            name=name, collection_id=run_id, documents=int(count), added_at=aware(added) or utcnow()
        )
        for name, run_id, added, count in rows
    ]


def _uri(path: str) -> str:
    """A document's address: its file URI when the path is absolute, else the name as
    uploaded."""
    candidate = Path(path)
    return candidate.as_uri() if candidate.is_absolute() else path
