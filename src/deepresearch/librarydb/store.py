"""The library's store (issue 25): what a finished run adds, what ``library show`` reads,
removing a run and tagging runs. Every method takes the owner and reads or writes that
owner's rows only; a run of another owner is "not in your library", exactly as one that
does not exist. Each write is one transaction: nothing is stored half-way.

Search is ``librarydb/search.py``; the rules of a query are ``core/library_query.py``."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import Connection, Engine, delete, exists, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from deepresearch.core.library_query import normalize_collection, normalize_tag
from deepresearch.core.support import Embedder
from deepresearch.errors import InvalidInput, RunNotFound
from deepresearch.librarydb import collections as _collections
from deepresearch.librarydb import search as _search
from deepresearch.librarydb.tables import (
    library_items,
    library_runs,
    library_sources,
    library_tags,
    library_texts,
    library_vectors,
)
from deepresearch.models.library import (
    CollectionSummary,
    HitSource,
    LibraryDocument,
    LibraryEntry,
    LibraryHit,
    LibraryPage,
    LibraryQuery,
    LibrarySource,
    RunSummary,
    ShelvedPage,
    ShelvedQuote,
    TagCount,
)
from deepresearch.sqldb import Clock, Transactions, aware, utc, utcnow

if TYPE_CHECKING:
    from deepresearch.librarydb.vectors import VectorIndex

#: the most tags one request adds to a run
MAX_TAGS = 20


def not_in_library(run_id: str) -> RunNotFound:
    """The one error for a run that is not the caller's, whether it exists or not."""
    return RunNotFound(
        f"run {run_id} is not in your library",
        hint="list what is with: deepresearch library search WORDS (or check the run id)",
    )


class LibraryStore(Transactions):
    """One owner-scoped view of the library tables per call; see the module docstring.

    With an ``embedder`` (the ``[embeddings]`` extra's, ``embeddings.load_default_embedder``)
    every item added gets its vector and :meth:`search` is hybrid (``librarydb/vectors.py``);
    without one, search is full text only and nothing about vectors is read or written."""

    def __init__(
        self, engine: Engine, clock: Clock = utcnow, *, embedder: Embedder | None = None
    ) -> None:
        super().__init__(engine, clock)
        self.embedder = embedder
        self._index: VectorIndex | None = None
        #: owners whose items this store has checked for missing vectors (once: every
        #: item added through an embedder gets its vector in the same transaction)
        self._complete: set[str] = set()

    @property
    def search_mode(self) -> Literal["text", "hybrid"]:
        """How :meth:`search` ranks: full text alone, or fused with embeddings."""
        return "text" if self.embedder is None else "hybrid"

    def _embed(self, conn: Connection, owner: str, run_id: str) -> None:
        if self.embedder is not None:
            from deepresearch.librarydb.vectors import embed_missing

            embed_missing(conn, owner, self.embedder, run_id=run_id)

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            yield conn

    # adding and removing runs -----------------------------------------------------------

    def add(self, owner: str, entry: LibraryEntry) -> None:
        """Add finished run ``entry`` to ``owner``'s library; a run added again replaces
        what it held (its tags stay)."""
        row = {
            "recipe": entry.recipe,
            "question": entry.question,
            "title": entry.title,
            "kind": entry.kind,
            "finished_at": utc(entry.finished_at),
        }
        with self._write() as conn:
            if _has_run(conn, owner, entry.run_id):
                old = _text_hashes(conn, owner, entry.run_id)
                _clear_run(conn, owner, entry.run_id)
                conn.execute(
                    update(library_runs)
                    .where(library_runs.c.owner == owner, library_runs.c.run_id == entry.run_id)
                    .values(**row)
                )
            else:
                old = set()
                conn.execute(
                    insert(library_runs).values(
                        owner=owner, run_id=entry.run_id, added_at=self.clock(), **row
                    )
                )
            self._add_sources(conn, owner, entry)
            items = list(_items(owner, entry))
            if items:
                conn.execute(insert(library_items), items)
            self._embed(conn, owner, entry.run_id)
            _collect_texts(conn, old)

    def _add_sources(self, conn: Connection, owner: str, entry: LibraryEntry) -> None:
        if not entry.sources:
            return
        texts = {_digest(source.text): source.text for source in entry.sources}
        rows = [{"sha256": k, "text": v, "chars": len(v)} for k, v in texts.items()]
        dialect = sqlite if self.sqlite else postgresql
        conn.execute(dialect.insert(library_texts).on_conflict_do_nothing(), rows)
        conn.execute(
            insert(library_sources),
            [
                {
                    "owner": owner,
                    "run_id": entry.run_id,
                    "source_id": source.source_id,
                    "url": source.url,
                    "title": source.title,
                    "domain": source.domain,
                    "kind": source.kind,
                    "text_sha256": _digest(source.text),
                    "fetched_at": utc(source.fetched_at),
                }
                for source in entry.sources
            ],
        )

    def remove(self, owner: str, run_id: str) -> None:
        """Remove run ``run_id`` from ``owner``'s library: its report, quotes, claims,
        sources, tags, and the page texts no other run holds. Search stops finding them
        when this returns. ``RunNotFound`` when it is not there."""
        with self._write() as conn:
            if not _has_run(conn, owner, run_id):
                raise not_in_library(run_id)
            _remove_run(conn, owner, run_id)

    # collections of your own documents --------------------------------------------------

    def import_collection(
        self, owner: str, name: str, documents: Sequence[LibraryDocument]
    ) -> CollectionSummary:
        """Add ``documents`` to ``owner``'s library as the new collection ``name``, in one
        transaction. ``InvalidInput`` when the name is taken or there is no document."""
        name = normalize_collection(name)
        if not documents:
            raise InvalidInput(
                "there is no document to import", hint="import .md, .txt, .html, .pdf or .docx"
            )
        now = self.clock()
        run_id = f"col-{uuid.uuid4().hex[:12]}"
        with self._write() as conn:
            _collections.refuse_taken(conn, owner, name)
            texts = _collections.insert_collection(conn, owner, run_id, name, documents, now)
            dialect = sqlite if self.sqlite else postgresql
            conn.execute(dialect.insert(library_texts).on_conflict_do_nothing(), texts)
            self._embed(conn, owner, run_id)
        return CollectionSummary(
            name=name, collection_id=run_id, documents=len(documents), added_at=now
        )

    def collections(self, owner: str) -> list[CollectionSummary]:
        """``owner``'s collections by name, with how many documents each holds."""
        with self._read() as conn:
            return _collections.listed(conn, owner)

    def rename_collection(self, owner: str, old: str, new: str) -> None:
        """Rename collection ``old``; ``RunNotFound`` when there is none, ``InvalidInput``
        when ``new`` is taken."""
        old, new = normalize_collection(old), normalize_collection(new)
        with self._write() as conn:
            _collections.rename(conn, owner, old, new)

    def remove_collection(self, owner: str, name: str) -> int:
        """Remove collection ``name`` with its documents and passages (search stops
        finding them when this returns); how many documents it held."""
        name = normalize_collection(name)
        with self._write() as conn:
            run_id = _collections.collection_run(conn, owner, name)
            if run_id is None:
                raise _collections.no_collection(name)
            documents = len(_text_hashes(conn, owner, run_id))
            _remove_run(conn, owner, run_id)
            return documents

    # reading ----------------------------------------------------------------------------

    def search(self, owner: str, query: LibraryQuery) -> list[LibraryHit]:
        """``owner``'s items matching ``query``, best first: full text, or hybrid with an
        embedder (:attr:`search_mode`; items stored before are embedded first)."""
        if self.embedder is None:
            with self._read() as conn:
                return _search.search(conn, owner, query)
        from deepresearch.librarydb import vectors

        if owner not in self._complete:
            with self._read() as conn:
                missing = vectors.has_missing(conn, owner)
            if missing:
                self.reindex(owner)
            self._complete.add(owner)
        if self._index is None:
            self._index = vectors.VectorIndex()
        with self._read() as conn:
            return vectors.hybrid_search(conn, owner, query, self.embedder, self._index)

    def reindex(self, owner: str) -> int:
        """Embed ``owner``'s items that have no vector yet; how many (0 without an
        embedder)."""
        if self.embedder is None:
            return 0
        from deepresearch.librarydb.vectors import embed_missing

        with self._write() as conn:
            return embed_missing(conn, owner, self.embedder)

    def shelved(self, owner: str, words: list[str], *, limit: int) -> list[ShelvedQuote]:
        """``owner``'s verified quotes holding any of ``words``, with their pages, best
        first: what a new run may reuse (``librarydb.search.shelved``)."""
        with self._read() as conn:
            return _search.shelved(conn, owner, words, limit)

    def latest_page(self, owner: str, url: str) -> ShelvedPage | None:
        """The latest read of ``url`` in ``owner``'s library, with its stored text."""
        with self._read() as conn:
            return _search.latest_page(conn, owner, url)

    def find_pages(self, owner: str, query: LibraryQuery) -> list[LibraryPage]:
        """The distinct pages and documents (by URL) whose quotes, claims or passages
        match ``query``, best first, each with its stored text (at most ``query.limit``
        items are searched)."""
        with self._read() as conn:
            hits = _search.search(conn, owner, query)
            best: dict[str, LibraryHit] = {}
            for hit in hits:
                if hit.source is not None and hit.source.source_id is not None:
                    best.setdefault(hit.source.url, hit)
            pages = []
            for hit in best.values():
                assert hit.source is not None
                text = conn.execute(
                    select(library_texts.c.text)
                    .join(
                        library_sources,
                        library_texts.c.sha256 == library_sources.c.text_sha256,
                    )
                    .where(
                        library_sources.c.owner == owner,
                        library_sources.c.run_id == hit.run.run_id,
                        library_sources.c.source_id == hit.source.source_id,
                    )
                ).scalar()
                if text:
                    pages.append(LibraryPage(hit=hit, text=text))
            return pages

    def show(self, owner: str, run_id: str) -> RunSummary:
        """What the library holds of run ``run_id`` (or of the collection of that name);
        ``RunNotFound`` when nothing."""
        with self._read() as conn:
            run = conn.execute(
                select(library_runs)
                .where(
                    library_runs.c.owner == owner,
                    (library_runs.c.run_id == run_id) | (library_runs.c.collection == run_id),
                )
                # a run of that id before a collection of that name
                .order_by(library_runs.c.collection.is_not(None))
            ).first()
            if run is None:
                raise not_in_library(run_id)
            m = run._mapping
            run_id = m["run_id"]
            counts: dict[str, int] = dict(
                conn.execute(
                    select(library_items.c.kind, func.count())
                    .where(library_items.c.owner == owner, library_items.c.run_id == run_id)
                    .group_by(library_items.c.kind)
                ).all()
            )
            report = conn.execute(
                select(library_items.c.text).where(
                    library_items.c.owner == owner,
                    library_items.c.run_id == run_id,
                    library_items.c.kind == "report",
                )
            ).scalar()
            sources = conn.execute(
                select(library_sources)
                .where(library_sources.c.owner == owner, library_sources.c.run_id == run_id)
                .order_by(library_sources.c.domain, library_sources.c.url)
            ).all()
            return RunSummary(
                run_id=run_id,
                question=m["question"],
                title=m["title"],
                recipe=m["recipe"],
                kind=m["kind"],
                finished_at=aware(m["finished_at"]) or utcnow(),
                tags=_search.run_tags(conn, owner, [run_id]).get(run_id, []),
                sources=[_hit_source(s._mapping) for s in sources],
                quotes=int(counts.get("quote", 0)),
                claims=int(counts.get("claim", 0)),
                report=report or "",
                collection=m["collection"],
            )

    def page(self, owner: str, run_id: str, source_id: str) -> LibrarySource:
        """A source of run ``run_id`` with its stored text; ``RunNotFound`` when the run
        or the source is not in ``owner``'s library."""
        with self._read() as conn:
            row = conn.execute(
                select(library_sources, library_texts.c.text)
                .join(library_texts, library_texts.c.sha256 == library_sources.c.text_sha256)
                .where(
                    library_sources.c.owner == owner,
                    library_sources.c.run_id == run_id,
                    library_sources.c.source_id == source_id,
                )
            ).first()
        if row is None:
            raise RunNotFound(
                f"no source {source_id} of run {run_id} in your library",
                hint=f"see the run's sources with: deepresearch library show {run_id}",
            )
        m = row._mapping
        return LibrarySource(
            source_id=source_id,
            url=m["url"],
            title=m["title"],
            domain=m["domain"],
            kind=m["kind"],
            text=m["text"],
            fetched_at=aware(m["fetched_at"]),
        )

    def counts(self, owner: str) -> dict[str, int]:
        """How many runs, sources (pages and imported documents), quotes and claims
        ``owner``'s library holds (its collections: :meth:`collections`)."""
        with self._read() as conn:
            runs = conn.execute(
                select(func.count())
                .select_from(library_runs)
                .where(library_runs.c.owner == owner, library_runs.c.collection.is_(None))
            ).scalar_one()
            sources = conn.execute(
                select(func.count())
                .select_from(library_sources)
                .where(library_sources.c.owner == owner)
            ).scalar_one()
            kinds: dict[str, int] = dict(
                conn.execute(
                    select(library_items.c.kind, func.count())
                    .where(library_items.c.owner == owner)
                    .group_by(library_items.c.kind)
                ).all()
            )
        return {
            "runs": int(runs),
            "sources": int(sources),
            "quotes": int(kinds.get("quote", 0)),
            "claims": int(kinds.get("claim", 0)),
        }

    # tags -------------------------------------------------------------------------------

    def tag(self, owner: str, run_id: str, tags: Iterable[str]) -> list[str]:
        """Add ``tags`` to run ``run_id``; its tags after. All are checked first."""
        wanted = sorted({normalize_tag(tag) for tag in tags})
        if not wanted:
            raise InvalidInput("no tag given", hint="name at least one tag")
        if len(wanted) > MAX_TAGS:
            raise InvalidInput(f"at most {MAX_TAGS} tags at once", hint="add them in turns")
        with self._write() as conn:
            if not _has_run(conn, owner, run_id):
                raise not_in_library(run_id)
            have = set(_search.run_tags(conn, owner, [run_id]).get(run_id, []))
            new = [{"owner": owner, "run_id": run_id, "tag": t} for t in wanted if t not in have]
            if new:
                conn.execute(insert(library_tags), new)
            return sorted(have | set(wanted))

    def untag(self, owner: str, run_id: str, tag: str) -> list[str]:
        """Remove ``tag`` from run ``run_id``; its tags after. ``RunNotFound`` when the
        run is not in the library or does not have the tag."""
        tag = normalize_tag(tag)
        with self._write() as conn:
            if not _has_run(conn, owner, run_id):
                raise not_in_library(run_id)
            gone = conn.execute(
                delete(library_tags).where(
                    library_tags.c.owner == owner,
                    library_tags.c.run_id == run_id,
                    library_tags.c.tag == tag,
                )
            ).rowcount
            if not gone:
                raise RunNotFound(f"run {run_id} has no tag {tag!r}", hint="check the tag")
            return _search.run_tags(conn, owner, [run_id]).get(run_id, [])

    def rename_tag(self, owner: str, old: str, new: str) -> int:
        """Rename tag ``old`` to ``new`` on every run that has it (a run that has both
        keeps one); how many runs had it. ``RunNotFound`` when no run has ``old``."""
        old, new = normalize_tag(old), normalize_tag(new)
        with self._write() as conn:
            runs = _tagged(conn, owner, old)
            if not runs:
                raise _no_tag(old)
            if new != old:
                has_new = set(_tagged(conn, owner, new))
                moved = [r for r in runs if r not in has_new]
                if moved:
                    conn.execute(
                        insert(library_tags),
                        [{"owner": owner, "run_id": r, "tag": new} for r in moved],
                    )
                _delete_tag(conn, owner, old)
            return len(runs)

    def drop_tag(self, owner: str, tag: str) -> int:
        """Remove tag ``tag`` from every run; how many had it (``RunNotFound``: none)."""
        tag = normalize_tag(tag)
        with self._write() as conn:
            runs = _tagged(conn, owner, tag)
            if not runs:
                raise _no_tag(tag)
            _delete_tag(conn, owner, tag)
            return len(runs)

    def tags(self, owner: str) -> list[TagCount]:
        """``owner``'s tags with how many runs have each, most used first."""
        with self._read() as conn:
            rows = conn.execute(
                select(library_tags.c.tag, func.count().label("runs"))
                .where(library_tags.c.owner == owner)
                .group_by(library_tags.c.tag)
                .order_by(func.count().desc(), library_tags.c.tag)
            ).all()
        return [TagCount(tag=tag, runs=int(runs)) for tag, runs in rows]


def _remove_run(conn: Connection, owner: str, run_id: str) -> None:
    """A run's (or a collection's) rows, its tags, and the texts no one else holds."""
    old = _text_hashes(conn, owner, run_id)
    _clear_run(conn, owner, run_id)
    conn.execute(
        delete(library_tags).where(library_tags.c.owner == owner, library_tags.c.run_id == run_id)
    )
    conn.execute(
        delete(library_runs).where(library_runs.c.owner == owner, library_runs.c.run_id == run_id)
    )
    _collect_texts(conn, old)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _has_run(conn: Connection, owner: str, run_id: str) -> bool:
    found = conn.execute(
        select(exists().where(library_runs.c.owner == owner, library_runs.c.run_id == run_id))
    ).scalar()
    return bool(found)


def _text_hashes(conn: Connection, owner: str, run_id: str) -> set[str]:
    return set(
        conn.execute(
            select(library_sources.c.text_sha256).where(
                library_sources.c.owner == owner, library_sources.c.run_id == run_id
            )
        ).scalars()
    )


def _clear_run(conn: Connection, owner: str, run_id: str) -> None:
    """A run's items (the search index follows: triggers, or the generated column) and
    sources; its row and tags stay."""
    for table in (library_vectors, library_items, library_sources):
        conn.execute(delete(table).where(table.c.owner == owner, table.c.run_id == run_id))


def _collect_texts(conn: Connection, hashes: set[str]) -> None:
    """Delete the page texts among ``hashes`` that no source holds any more."""
    if not hashes:
        return
    still = exists().where(library_sources.c.text_sha256 == library_texts.c.sha256)
    conn.execute(delete(library_texts).where(library_texts.c.sha256.in_(hashes), ~still))


def _tagged(conn: Connection, owner: str, tag: str) -> list[str]:
    return list(
        conn.execute(
            select(library_tags.c.run_id).where(
                library_tags.c.owner == owner, library_tags.c.tag == tag
            )
        ).scalars()
    )


def _delete_tag(conn: Connection, owner: str, tag: str) -> None:
    conn.execute(
        delete(library_tags).where(library_tags.c.owner == owner, library_tags.c.tag == tag)
    )


def _no_tag(tag: str) -> RunNotFound:
    return RunNotFound(
        f"no run in your library has the tag {tag!r}",
        hint="list your tags: deepresearch library tag list",
    )


def _hit_source(m: Any) -> HitSource:
    return HitSource(
        url=m["url"],
        title=m["title"],
        domain=m["domain"],
        fetched_at=aware(m["fetched_at"]),
        source_id=m["source_id"],
    )


def _items(owner: str, entry: LibraryEntry) -> Iterator[dict[str, Any]]:
    """The searchable rows of a run: its report, its verified quotes, its claims."""
    base = {"owner": owner, "run_id": entry.run_id}
    if entry.report.strip():
        yield {
            **base,
            "kind": "report",
            "item_id": "report",
            "source_id": None,
            "text": entry.report,
            "claim": entry.title or entry.question,
            "confidence": None,
            "detail": {},
        }
    for quote in entry.quotes:
        yield {
            **base,
            "kind": "quote",
            "item_id": quote.evidence_id,
            "source_id": quote.source_id,
            "text": quote.quote,
            "claim": quote.claim,
            "confidence": None,
            "detail": {"sub_question_id": quote.sub_question_id},
        }
    for claim in entry.claims:
        yield {
            **base,
            "kind": "claim",
            "item_id": claim.claim_id,
            "source_id": claim.source_id,
            "text": claim.text,
            "claim": "",
            "confidence": claim.confidence,
            "detail": {"evidence_ids": claim.evidence_ids, "contradiction": claim.contradiction},
        }
