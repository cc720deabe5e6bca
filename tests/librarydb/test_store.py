"""The library's store (``librarydb/``) on SQLite and PostgreSQL: its migrations match its
tables, a run added is found by full-text search with every filter, page texts are stored
once and collected with the last run that holds them, tags rename and merge, a removed run
is gone from search at once, owners never see each other's rows, and a failed write
leaves nothing half-way."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, func, select

from deepresearch.core.library_query import parse_query
from deepresearch.errors import InvalidInput, RunNotFound
from deepresearch.librarydb.engine import migrate_library
from deepresearch.librarydb.store import LibraryStore
from deepresearch.librarydb.tables import (
    FTS_TABLE,
    VERSION_TABLE,
    library_items,
    library_texts,
    metadata,
)
from deepresearch.models.library import (
    LibraryClaim,
    LibraryEntry,
    LibraryQuote,
    LibrarySource,
)
from deepresearch.sqldb import make_engine

PAGE = "Tokamaks confine the plasma with strong magnetic fields. Stellarators twist them."


@pytest.fixture
def engine(library_url: str) -> Iterator[Engine]:
    engine = make_engine(library_url)
    migrate_library(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def store(engine: Engine) -> LibraryStore:
    return LibraryStore(engine)


def entry(run_id: str, *, day: int = 1, domain: str = "iter.org", page: str = PAGE) -> LibraryEntry:
    return LibraryEntry(
        run_id=run_id,
        recipe="research",
        question=f"How do fusion reactors hold plasma? ({run_id})",
        title="Fusion confinement",
        kind="synthesized",
        report="# Fusion confinement\n\nMagnetic confinement holds the plasma.\n\nOther words.",
        finished_at=datetime(2026, 11, day, 12, tzinfo=UTC),
        sources=[
            LibrarySource(
                source_id="s1",
                url=f"https://www.{domain}/machines",
                title="Machines",
                domain=domain,
                text=page,
                fetched_at=datetime(2026, 11, day, 11, tzinfo=UTC),
            )
        ],
        quotes=[
            LibraryQuote(
                evidence_id="q1-e1",
                source_id="s1",
                quote="Tokamaks confine the plasma with strong magnetic fields.",
                claim="Tokamaks use magnets",
            )
        ],
        claims=[
            LibraryClaim(
                claim_id="c1",
                text="Tokamaks confine plasma magnetically",
                source_id="s1",
                evidence_ids=["q1-e1"],
                confidence=0.8,
            )
        ],
    )


def find(store: LibraryStore, text: str, owner: str = "alice", **filters: object) -> list[str]:
    hits = store.search(owner, parse_query(text, filters))
    return [f"{hit.run.run_id}:{hit.kind}" for hit in hits]


def test_migrations_match_the_tables(engine: Engine) -> None:
    migrate_library(engine)  # a second upgrade is a no-op

    def ours(obj: object, name: str | None, type_: str, *args: object) -> bool:
        # the full-text index is the dialect's, made in the migration only
        name = name or ""
        return not name.startswith((FTS_TABLE, "alembic_version")) and "tsv" not in name

    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"include_object": ours, "version_table": VERSION_TABLE}
        )
        assert compare_metadata(context, metadata) == []


def test_search_finds_quotes_claims_and_reports_with_their_source_and_run(
    store: LibraryStore,
) -> None:
    store.add("alice", entry("r1"))
    hits = store.search("alice", parse_query("magnetic plasma"))
    kinds = {hit.kind for hit in hits}
    assert kinds == {"quote", "claim", "report"}  # "magnetically": stemmed, it matches
    quote = next(hit for hit in hits if hit.kind == "quote")
    assert quote.source is not None and quote.source.url == "https://www.iter.org/machines"
    assert quote.source.fetched_at == datetime(2026, 11, 1, 11, tzinfo=UTC)
    assert quote.claim == "Tokamaks use magnets" and quote.run.run_id == "r1"
    report = next(hit for hit in hits if hit.kind == "report")
    assert report.text == "Magnetic confinement holds the plasma."  # its best line
    assert find(store, "tokamaks", kind="claim") == ["r1:claim"]


def test_every_filter(store: LibraryStore) -> None:
    store.add("alice", entry("r1", day=1))
    store.add("alice", entry("r2", day=5, domain="example.org"))
    store.tag("alice", "r2", ["fusion"])
    assert set(find(store, "tokamaks", kind="quote")) == {"r1:quote", "r2:quote"}
    assert find(store, "tokamaks", kind="quote", since="2026-11-03") == ["r2:quote"]
    assert find(store, "tokamaks", kind="quote", until="2026-11-03") == ["r1:quote"]
    assert find(store, "tokamaks", kind="quote", domain="iter.org") == ["r1:quote"]
    assert find(store, "tokamaks", kind="quote", domain="www.iter.org") == ["r1:quote"]
    assert find(store, "tokamaks", kind="quote", run="r2") == ["r2:quote"]
    assert find(store, "tokamaks", kind="quote", tag="fusion") == ["r2:quote"]
    assert find(store, "tokamaks", recipe="employer") == []
    assert len(find(store, "tokamaks", limit=1)) == 1


def test_page_text_is_stored_once_and_collected_with_its_last_run(
    store: LibraryStore, engine: Engine
) -> None:
    store.add("alice", entry("r1"))
    store.add("alice", entry("r2"))
    store.add("bob", entry("r3"))

    def texts() -> int:
        with engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(library_texts)).scalar_one())

    assert texts() == 1
    assert store.page("alice", "r1", "s1").text == PAGE
    store.remove("alice", "r1")
    store.remove("alice", "r2")
    assert texts() == 1  # bob's run still holds it
    store.remove("bob", "r3")
    assert texts() == 0


def test_a_removed_run_is_gone_from_search_at_once(store: LibraryStore) -> None:
    store.add("alice", entry("r1"))
    store.tag("alice", "r1", ["x"])
    store.remove("alice", "r1")
    assert find(store, "tokamaks") == [] and store.tags("alice") == []
    assert store.counts("alice") == {"runs": 0, "sources": 0, "quotes": 0, "claims": 0}
    with pytest.raises(RunNotFound):
        store.remove("alice", "r1")


def test_adding_a_run_again_replaces_it_and_keeps_its_tags(store: LibraryStore) -> None:
    store.add("alice", entry("r1"))
    store.tag("alice", "r1", ["keep"])
    store.add("alice", entry("r1", page="Spheromaks are compact tori."))
    assert store.counts("alice")["quotes"] == 1
    assert store.show("alice", "r1").tags == ["keep"]
    assert store.page("alice", "r1", "s1").text == "Spheromaks are compact tori."


def test_tags_rename_merge_and_drop(store: LibraryStore) -> None:
    store.add("alice", entry("r1"))
    store.add("alice", entry("r2"))
    store.tag("alice", "r1", ["old", "Both"])
    store.tag("alice", "r2", ["both"])
    assert store.rename_tag("alice", "old", "both") == 1  # r1 had both: one kept
    assert [(t.tag, t.runs) for t in store.tags("alice")] == [("both", 2)]
    assert store.untag("alice", "r1", "both") == []
    assert store.drop_tag("alice", "both") == 1
    with pytest.raises(RunNotFound, match="no run in your library has the tag"):
        store.rename_tag("alice", "both", "x")
    with pytest.raises(InvalidInput):
        store.tag("alice", "r1", ["fine", "<bad>"])
    assert store.show("alice", "r1").tags == []  # nothing half-way


def test_one_owner_never_sees_another(store: LibraryStore) -> None:
    store.add("alice", entry("r1"))
    store.tag("alice", "r1", ["secret"])
    assert find(store, "tokamaks", owner="bob") == []
    assert store.counts("bob") == {"runs": 0, "sources": 0, "quotes": 0, "claims": 0}
    assert store.tags("bob") == []
    for attempt in (
        lambda: store.show("bob", "r1"),
        lambda: store.page("bob", "r1", "s1"),
        lambda: store.remove("bob", "r1"),
        lambda: store.tag("bob", "r1", ["x"]),
        lambda: store.untag("bob", "r1", "secret"),
        lambda: store.rename_tag("bob", "secret", "x"),
    ):
        with pytest.raises(RunNotFound) as refused:
            attempt()
        assert "alice" not in str(refused.value)
    with pytest.raises(RunNotFound) as missing:
        store.show("bob", "nope")
    with pytest.raises(RunNotFound) as theirs:
        store.show("bob", "r1")
    assert str(missing.value).replace("nope", "X") == str(theirs.value).replace("r1", "X")
    assert store.show("alice", "r1").tags == ["secret"]  # untouched


def test_a_failed_add_stores_nothing(store: LibraryStore, engine: Engine) -> None:
    bad = entry("r1")
    bad.quotes.append(bad.quotes[0])  # the same evidence twice: the insert fails
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        store.add("alice", bad)
    assert store.counts("alice")["runs"] == 0
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(library_items)).scalar_one() == 0
        assert conn.execute(select(func.count()).select_from(library_texts)).scalar_one() == 0
    assert find(store, "tokamaks") == []


def test_shelved_quotes_hold_any_word_with_their_page_for_their_owner_only(
    store: LibraryStore,
) -> None:
    store.add("alice", entry("run-aaaa1111", day=1))
    store.add("alice", entry("run-aaaa2222", day=3, page=PAGE + " More text."))
    store.add("bob", entry("run-bbbb1111"))
    found = store.shelved("alice", ["stellarator", "magnetic"], limit=10)
    assert {quote.run_id for quote in found} == {"run-aaaa1111", "run-aaaa2222"}
    assert all(quote.quote.startswith("Tokamaks confine") for quote in found)
    assert {quote.source.text for quote in found} == {PAGE, PAGE + " More text."}
    assert all(quote.source.fetched_at is not None for quote in found)
    assert store.shelved("alice", ["nothing"], limit=10) == []
    assert store.shelved("carol", ["magnetic"], limit=10) == []
    assert len(store.shelved("alice", ["magnetic"], limit=1)) == 1
    latest = store.latest_page("alice", "https://www.iter.org/machines")
    assert latest is not None and latest.run_id == "run-aaaa2222"
    assert latest.source.text == PAGE + " More text."
    assert store.latest_page("carol", "https://www.iter.org/machines") is None
    assert store.latest_page("alice", "https://www.iter.org/other") is None
