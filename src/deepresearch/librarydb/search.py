"""Full-text search of one owner's library, in the dialect's own index: SQLite FTS5
(``MATCH``, ranked by ``bm25``) or PostgreSQL (``tsv @@ plainto_tsquery``, ranked by
``ts_rank``). The filters are the same SQL on both. Every query is bound to the owner.

The words come checked from ``core.library_query``; on SQLite they reach FTS5 as quoted
strings (``fts5_match``), on PostgreSQL as a parameter of ``plainto_tsquery``, so no
user text is read as query syntax."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Connection,
    Float,
    FromClause,
    Join,
    Select,
    Subquery,
    and_,
    bindparam,
    exists,
    func,
    literal_column,
    or_,
    select,
    text,
)

from deepresearch.core.library_query import best_lines, fts5_any, fts5_match
from deepresearch.librarydb.tables import (
    FTS_TABLE,
    PG_CONFIG,
    library_items,
    library_runs,
    library_sources,
    library_tags,
    library_texts,
)
from deepresearch.models.library import (
    HitRun,
    HitSource,
    LibraryHit,
    LibraryQuery,
    LibrarySource,
    ShelvedPage,
    ShelvedQuote,
)
from deepresearch.sqldb import aware, utcnow

i, r, s = library_items, library_runs, library_sources


#: what a hit shows of its item, its run and its source (``_hit`` reads them)
HIT_COLUMNS = (
    i.c.kind,
    i.c.item_id,
    i.c.text,
    i.c.claim,
    i.c.run_id,
    r.c.question,
    r.c.recipe,
    r.c.finished_at,
    r.c.collection,
    s.c.source_id,
    s.c.url,
    s.c.title,
    s.c.domain,
    s.c.fetched_at,
)


def hits_from() -> Join:
    """The items with their run and (when they have one) their source."""
    return i.join(r, and_(r.c.owner == i.c.owner, r.c.run_id == i.c.run_id)).outerjoin(
        s, and_(s.c.owner == i.c.owner, s.c.run_id == i.c.run_id, s.c.source_id == i.c.source_id)
    )


def search(conn: Connection, owner: str, query: LibraryQuery) -> list[LibraryHit]:
    """``owner``'s items matching ``query``, best first, at most ``query.limit``."""
    columns = HIT_COLUMNS
    joined = hits_from()
    # the best ``limit`` ids are chosen first, then only they are joined to their run and
    # source: joining every match before the sort cost most of a common word's time
    best = _best(conn.dialect.name, owner, query)
    stmt = (
        select(*columns, best.c.score)
        .select_from(joined.join(best, best.c.id == i.c.id))
        .where(i.c.owner == owner)
        .order_by(best.c.score.desc(), i.c.id)
    )
    rows = conn.execute(stmt).all()
    tags = run_tags(conn, owner, sorted({row._mapping["run_id"] for row in rows}))
    return [_hit(row._mapping, query, tags) for row in rows]


def shelved(conn: Connection, owner: str, words: Sequence[str], limit: int) -> list[ShelvedQuote]:
    """``owner``'s verified quotes holding any of ``words``, best first, at most
    ``limit``, each with its page's stored text and read time: what a new run is offered
    (``core.library_reuse`` ranks them as the run ranks passages)."""
    if not words:
        return []
    t = library_texts
    pages = i.join(
        s, and_(s.c.owner == i.c.owner, s.c.run_id == i.c.run_id, s.c.source_id == i.c.source_id)
    ).join(t, t.c.sha256 == s.c.text_sha256)
    if conn.dialect.name == "postgresql":
        # any of the words: websearch syntax's "or" between plain words (each a \w+ word)
        ranking = _ranking(
            conn.dialect.name,
            func.websearch_to_tsquery(PG_CONFIG, bindparam("words", " or ".join(words))),
        )
    else:
        ranking = _ranking(conn.dialect.name, bindparam("match", fts5_any(words)))
    # the owner's matching quotes first, through the full-text index alone (on PostgreSQL
    # materialized: the planner otherwise walked every source's quotes testing each
    # tsvector), then the best of those with a source and a page, then only their texts
    matches = (
        select(i.c.id, i.c.run_id, i.c.source_id, ranking.score.label("score"))
        .select_from(ranking.joined(i))
        .where(i.c.owner == owner, i.c.kind == "quote", ranking.matching)
        .cte("matches")
    )
    if conn.dialect.name == "postgresql":
        matches = matches.prefix_with("MATERIALIZED")
    m = matches.c
    best = (
        select(m.id, m.score)
        .select_from(
            matches.join(
                s, and_(s.c.owner == owner, s.c.run_id == m.run_id, s.c.source_id == m.source_id)
            ).join(t, t.c.sha256 == s.c.text_sha256)
        )
        .order_by(m.score.desc(), m.id)
        .limit(limit)
        .subquery("best")
    )
    columns = (i.c.run_id, i.c.item_id, i.c.text, i.c.claim, s.c.source_id, s.c.url, s.c.title)
    more = (s.c.domain, s.c.kind, s.c.fetched_at, t.c.text.label("page"))
    stmt = (
        select(*columns, *more)
        .select_from(pages.join(best, best.c.id == i.c.id))
        .order_by(best.c.score.desc(), i.c.id)
    )
    return [_shelved(row._mapping) for row in conn.execute(stmt).all()]


def latest_page(conn: Connection, owner: str, url: str) -> ShelvedPage | None:
    """The latest read of ``url`` in ``owner``'s library (a page some run quoted), or
    None."""
    t = library_texts
    row = conn.execute(
        select(s, r.c.finished_at, t.c.text.label("page"))
        .select_from(
            s.join(t, t.c.sha256 == s.c.text_sha256).join(
                r, and_(r.c.owner == s.c.owner, r.c.run_id == s.c.run_id)
            )
        )
        .where(s.c.owner == owner, s.c.url == url)
        .order_by(s.c.fetched_at.desc().nulls_last(), r.c.finished_at.desc(), s.c.run_id)
        .limit(1)
    ).first()
    if row is None:
        return None
    m = row._mapping
    return ShelvedPage(run_id=m["run_id"], source=_library_source(m))


def _library_source(m: Any) -> LibrarySource:
    return LibrarySource(
        source_id=m["source_id"],
        url=m["url"],
        title=m["title"],
        domain=m["domain"],
        kind=m["kind"],
        text=m["page"],
        fetched_at=aware(m["fetched_at"]),
    )


def _shelved(m: Any) -> ShelvedQuote:
    return ShelvedQuote(
        run_id=m["run_id"],
        evidence_id=m["item_id"],
        quote=m["text"],
        claim=m["claim"],
        source=_library_source(m),
    )


#: on SQLite, a search matching more of an owner's items (after its filters) than this
#: ranks the newest this many of them: at 100,000 quotes no content word comes near it
#: (the commonest, "known", is in 9,216), while "the" is in 88,000
SQLITE_RANKED_MATCHES = 20_000


def _best(dialect: str, owner: str, query: LibraryQuery) -> Subquery:
    """The ids and scores of ``owner``'s best ``query.limit`` matches, filtered, best first
    (ties by id): the ranking reads only the full-text index and the items, and the run
    or source only when a filter needs them (every item has its run, so leaving the join
    out drops no row)."""
    if dialect == "postgresql":
        ranking = _ranking(dialect, _tsquery(query))
    else:
        match = fts5_match(query.words, any_word=query.match == "any")
        ranking = _ranking(dialect, bindparam("match", match))
    found = ranking.joined(i)
    if _needs_run(query):
        found = found.join(r, and_(r.c.owner == i.c.owner, r.c.run_id == i.c.run_id))
    if query.domain is not None:
        found = found.join(
            s,
            and_(s.c.owner == i.c.owner, s.c.run_id == i.c.run_id, s.c.source_id == i.c.source_id),
        )
    stmt = _filtered(
        select(i.c.id, ranking.score.label("score"))
        .select_from(found)
        .where(i.c.owner == owner, ranking.matching),
        owner,
        query,
    )
    if not ranking.fts:
        return stmt.order_by(*ranking.order).limit(query.limit).subquery("best")
    # SQLite: bm25 costs a lookup a match, and FTS5 keeps stop words ("the" is in most
    # items), so the owner's filtered matches are walked newest first (FTS5's own rowid
    # order, one pass) and only the first SQLITE_RANKED_MATCHES of them are scored;
    # below that many, all of them
    rowid: ColumnElement[Any] = literal_column(f"{FTS_TABLE}.rowid")  # the item's id
    newest = stmt.order_by(rowid.desc()).limit(SQLITE_RANKED_MATCHES).subquery("newest")
    return (
        select(newest.c.id, newest.c.score)
        .order_by(newest.c.score.desc(), newest.c.id)
        .limit(query.limit)
        .subquery("best")
    )


class _Ranking(NamedTuple):
    """The dialect's full-text match of the items and its score (higher is better), and
    the order that puts the best first (ties by id)."""

    matching: ColumnElement[Any]
    score: ColumnElement[Any]
    order: tuple[ColumnElement[Any], ...]
    fts: bool  # SQLite: the FTS5 table is joined to the items

    def joined(self, items: FromClause) -> FromClause:
        """``items`` (library_items, maybe joined to more) with the index it needs."""
        if not self.fts:
            return items  # PostgreSQL: the tsvector is a column of the items
        return items.join(text(FTS_TABLE), literal_column(f"{FTS_TABLE}.rowid") == i.c.id)


def _ranking(dialect: str, terms: ColumnElement[Any]) -> _Ranking:
    """``terms`` (PostgreSQL: a tsquery; SQLite: an FTS5 match expression) matched and
    ranked: ``ts_rank`` of the stored tsvector, or FTS5's own rank (bm25, lowest best)."""
    if dialect == "postgresql":
        vector: ColumnElement[Any] = literal_column("library_items.tsv")
        score: ColumnElement[Any] = func.ts_rank(vector, terms, type_=Float)
        return _Ranking(vector.op("@@")(terms), score, (score.desc(), i.c.id), fts=False)
    rank = literal_column(f"{FTS_TABLE}.rank", Float)
    matching = literal_column(FTS_TABLE).op("MATCH")(terms)
    return _Ranking(matching, -rank, (rank, i.c.id), fts=True)


def _needs_run(query: LibraryQuery) -> bool:
    """Whether a filter reads the run's row (its time, recipe or collection)."""
    return any(
        value is not None for value in (query.since, query.until, query.recipe, query.collection)
    )


def _tsquery(query: LibraryQuery) -> ColumnElement[Any]:
    """Every word (``plainto_tsquery`` of them all), or any one (the ``||`` of one
    ``plainto_tsquery`` a word); each word a bound parameter, never query syntax."""
    if query.match == "all":
        return func.plainto_tsquery(PG_CONFIG, bindparam("words", " ".join(query.words)))
    parts = [
        func.plainto_tsquery(PG_CONFIG, bindparam(f"word{n}", word))
        for n, word in enumerate(query.words)
    ]
    combined: ColumnElement[Any] = parts[0]
    for part in parts[1:]:
        combined = combined.op("||")(part)
    return combined


def _filtered(stmt: Select[Any], owner: str, query: LibraryQuery) -> Select[Any]:
    if query.since is not None:
        stmt = stmt.where(r.c.finished_at >= query.since)
    if query.until is not None:
        stmt = stmt.where(r.c.finished_at < query.until)
    if query.domain is not None:
        stmt = stmt.where(or_(s.c.domain == query.domain, s.c.domain.like(f"%.{query.domain}")))
    if query.run is not None:
        stmt = stmt.where(i.c.run_id == query.run)
    if query.recipe is not None:
        stmt = stmt.where(r.c.recipe == query.recipe)
    if query.kind is not None:
        stmt = stmt.where(i.c.kind == query.kind)
    if query.collection is not None:
        stmt = stmt.where(r.c.collection == query.collection)
    if query.tag is not None:
        stmt = stmt.where(
            exists().where(
                library_tags.c.owner == owner,
                library_tags.c.run_id == i.c.run_id,
                library_tags.c.tag == query.tag,
            )
        )
    return stmt


def run_tags(conn: Connection, owner: str, run_ids: Sequence[str]) -> dict[str, list[str]]:
    """The tags of each of ``owner``'s runs ``run_ids``, sorted."""
    if not run_ids:
        return {}
    found: dict[str, list[str]] = {}
    rows = conn.execute(
        select(library_tags.c.run_id, library_tags.c.tag)
        .where(library_tags.c.owner == owner, library_tags.c.run_id.in_(list(run_ids)))
        .order_by(library_tags.c.tag)
    )
    for run_id, tag in rows:
        found.setdefault(run_id, []).append(tag)
    return found


def _hit(m: Any, query: LibraryQuery, tags: dict[str, list[str]]) -> LibraryHit:
    kind = m["kind"]
    source = None
    if m["url"] is not None:
        source = HitSource(
            url=m["url"],
            title=m["title"],
            domain=m["domain"],
            fetched_at=aware(m["fetched_at"]),
            source_id=m["source_id"],
        )
    return LibraryHit(
        kind=kind,
        item_id=m["item_id"],
        text=best_lines(m["text"], query.words) if kind in ("report", "document") else m["text"],
        claim=m["claim"],
        source=source,
        run=HitRun(
            run_id=m["run_id"],
            question=m["question"],
            recipe=m["recipe"],
            finished_at=aware(m["finished_at"]) or utcnow(),
            tags=tags.get(m["run_id"], []),
            collection=m["collection"],
        ),
    )
