"""Library search on SQLite and PostgreSQL returns the right rows in the right order: the
best matches by the dialect's rank (more occurrences of the word in texts of one length
rank higher), ties by the order they were stored, cut at the limit only after the owner
and every filter are applied, and never another owner's row however well it ranks; the
quotes a new run is offered (``shelved``) in the same order."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from deepresearch.core.library_query import parse_query
from deepresearch.librarydb import search as search_module
from deepresearch.librarydb.engine import migrate_library
from deepresearch.librarydb.store import LibraryStore
from deepresearch.models.library import LibraryEntry, LibraryQuote, LibrarySource
from deepresearch.sqldb import make_engine

# four words each: more "plasma" ranks higher on both dialects
QUOTES = {
    "three": "plasma plasma plasma alpha",
    "two": "plasma plasma alpha beta",
    "one": "plasma alpha beta gamma",
}


@pytest.fixture
def store(library_url: str) -> Iterator[LibraryStore]:
    engine: Engine = make_engine(library_url)
    migrate_library(engine)
    yield LibraryStore(engine)
    engine.dispose()


def entry(run_id: str, day: int, domain: str, quotes: dict[str, str]) -> LibraryEntry:
    return LibraryEntry(
        run_id=run_id,
        recipe="research",
        question=f"What holds a fusion fuel? ({run_id})",
        title="Fusion",
        kind="synthesized",
        report="# Fusion\n\nNothing to match here.",
        finished_at=datetime(2026, 11, day, 12, tzinfo=UTC),
        sources=[
            LibrarySource(
                source_id="s1",
                url=f"https://{domain}/page",
                title="Page",
                domain=domain,
                text=" ".join(quotes.values()),
                fetched_at=datetime(2026, 11, day, 11, tzinfo=UTC),
            )
        ],
        quotes=[
            LibraryQuote(evidence_id=name, source_id="s1", quote=quote, claim="")
            for name, quote in quotes.items()
        ],
    )


def found(store: LibraryStore, owner: str = "alice", **filters: object) -> list[str]:
    hits = store.search(owner, parse_query("plasma", filters))
    return [f"{hit.run.run_id}:{hit.item_id}" for hit in hits]


@pytest.fixture
def filled(store: LibraryStore) -> LibraryStore:
    # the other owner's text ranks above all of alice's, and is stored first
    store.add("bob", entry("b1", 1, "iter.org", {"four": "plasma plasma plasma plasma"}))
    store.add("alice", entry("r1", 1, "iter.org", QUOTES))
    store.add("alice", entry("r2", 5, "example.org", QUOTES))
    store.tag("alice", "r2", ["fusion"])
    return store


def test_best_first_ties_in_stored_order_and_only_the_owners_rows(filled: LibraryStore) -> None:
    assert found(filled) == [
        "r1:three",
        "r2:three",
        "r1:two",
        "r2:two",
        "r1:one",
        "r2:one",
    ]
    assert found(filled, limit=3) == ["r1:three", "r2:three", "r1:two"]
    assert found(filled, owner="bob") == ["b1:four"]


def test_the_limit_cuts_after_every_filter(filled: LibraryStore) -> None:
    later = ["r2:three", "r2:two"]
    assert found(filled, since="2026-11-03", limit=2) == later
    assert found(filled, domain="example.org", limit=2) == later
    assert found(filled, tag="fusion", limit=2) == later
    assert found(filled, run="r2", limit=2) == later
    assert found(filled, until="2026-11-03", recipe="research", limit=2) == [
        "r1:three",
        "r1:two",
    ]
    assert found(filled, kind="claim") == []
    assert found(filled, owner="bob", domain="example.org") == []


def test_shelved_quotes_best_first_cut_at_the_limit_for_their_owner(filled: LibraryStore) -> None:
    def shelved(owner: str, limit: int) -> list[str]:
        found = filled.shelved(owner, ["plasma", "fusion"], limit=limit)
        return [f"{quote.run_id}:{quote.evidence_id}" for quote in found]

    assert shelved("alice", 3) == ["r1:three", "r2:three", "r1:two"]
    assert len(shelved("alice", 20)) == 6
    assert shelved("bob", 20) == ["b1:four"]


def test_sqlite_ranks_only_the_owners_newest_matches_past_its_cap(
    filled: LibraryStore, library_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word in most of a large library ("the": FTS5 keeps stop words) would make SQLite
    score every item; past the cap only the owner's newest matches that pass the filters
    are ranked. Another owner's matches do not count, and PostgreSQL ranks all."""
    monkeypatch.setattr(search_module, "SQLITE_RANKED_MATCHES", 3)
    everything = ["r1:three", "r2:three", "r1:two", "r2:two", "r1:one", "r2:one"]
    newest = ["r2:three", "r2:two", "r2:one"]
    assert found(filled) == (newest if library_url.startswith("sqlite") else everything)
    # the cap counts what passes the filters: the older run's matches are all ranked
    assert found(filled, run="r1") == ["r1:three", "r1:two", "r1:one"]
    assert found(filled, owner="bob") == ["b1:four"]
