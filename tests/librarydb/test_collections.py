"""Collections of your own documents in the library's store (``library import``), on
SQLite and PostgreSQL: found by search beside past research (the ``collection`` filter,
the ``document`` kind), shown by name, renamed and removed each in one transaction (gone
from search at once), never visible to another owner, and an import that fails stores
nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, func, select

from deepresearch.core.library_query import parse_query
from deepresearch.errors import InvalidInput, RunNotFound
from deepresearch.librarydb.engine import migrate_library
from deepresearch.librarydb.store import LibraryStore
from deepresearch.librarydb.tables import library_items, library_runs, library_texts
from deepresearch.models.library import LibraryDocument
from deepresearch.sqldb import make_engine

from .test_store import entry

DOCS = [
    LibraryDocument(
        path="/papers/stellarator.md",
        title="Stellarators",
        text="# Stellarators\n\nA stellarator twists its coils to hold the plasma.",
    ),
    LibraryDocument(
        path="/papers/notes.docx",
        title="Notes",
        kind="docx",
        text="Wendelstein 7-X is a stellarator in Greifswald.",
    ),
]


@pytest.fixture
def engine(library_url: str) -> Iterator[Engine]:
    engine = make_engine(library_url)
    migrate_library(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def store(engine: Engine) -> LibraryStore:
    return LibraryStore(engine)


def find(store: LibraryStore, text: str, owner: str = "alice", **filters: object) -> list[str]:
    hits = store.search(owner, parse_query(text, filters))
    return sorted(f"{hit.run.collection or hit.run.run_id}:{hit.kind}" for hit in hits)


def test_a_collection_is_searched_beside_past_research(store: LibraryStore) -> None:
    store.add("alice", entry("r1"))
    made = store.import_collection("alice", "Papers", DOCS)
    assert (made.name, made.documents) == ("papers", 2)
    assert find(store, "plasma") == ["papers:document", "r1:claim", "r1:quote", "r1:report"]
    assert find(store, "plasma", collection="papers") == ["papers:document"]
    assert find(store, "plasma", kind="document") == ["papers:document"]
    hit = store.search("alice", parse_query("greifswald"))[0]
    assert hit.source is not None and hit.source.url == "file:///papers/notes.docx"
    assert hit.run.run_id == made.collection_id and hit.claim == "Notes"
    shown = store.show("alice", "papers")
    assert shown.collection == "papers" and len(shown.sources) == 2
    assert store.show("alice", made.collection_id).run_id == made.collection_id
    assert store.counts("alice")["runs"] == 1  # a collection is not a run
    assert [(c.name, c.documents) for c in store.collections("alice")] == [("papers", 2)]


def test_rename_and_remove_act_at_once(store: LibraryStore, engine: Engine) -> None:
    store.import_collection("alice", "papers", DOCS)
    store.rename_collection("alice", "papers", "Fusion")
    assert find(store, "stellarator", collection="fusion") == ["fusion:document"] * 2
    assert find(store, "stellarator", collection="papers") == []
    store.import_collection("alice", "other", DOCS[:1])
    with pytest.raises(InvalidInput, match="already have a collection 'other'"):
        store.rename_collection("alice", "fusion", "other")
    assert store.remove_collection("alice", "fusion") == 2
    assert find(store, "greifswald") == []
    with pytest.raises(RunNotFound, match="no collection 'fusion'"):
        store.remove_collection("alice", "fusion")
    store.remove_collection("alice", "other")
    with engine.connect() as conn:
        for table in (library_items, library_texts, library_runs):
            assert conn.execute(select(func.count()).select_from(table)).scalar_one() == 0


def test_a_taken_name_or_no_document_is_refused(store: LibraryStore) -> None:
    store.import_collection("alice", "papers", DOCS)
    with pytest.raises(InvalidInput, match="already have"):
        store.import_collection("alice", "PAPERS", DOCS)
    with pytest.raises(InvalidInput, match="no document"):
        store.import_collection("alice", "empty", [])
    with pytest.raises(InvalidInput, match="not a collection name"):
        store.import_collection("alice", "<bad>", DOCS)
    assert [c.name for c in store.collections("alice")] == ["papers"]


def test_one_owner_never_sees_another_owners_collection(store: LibraryStore) -> None:
    store.import_collection("alice", "papers", DOCS)
    store.import_collection("bob", "papers", DOCS[:1])  # the same name is bob's own
    assert find(store, "greifswald", owner="bob") == []
    assert [(c.name, c.documents) for c in store.collections("bob")] == [("papers", 1)]
    assert store.collections("carol") == []
    for attempt in (
        lambda: store.rename_collection("carol", "papers", "x"),
        lambda: store.remove_collection("carol", "papers"),
        lambda: store.show("carol", "papers"),
    ):
        with pytest.raises(RunNotFound) as refused:
            attempt()
        assert "alice" not in str(refused.value) and "bob" not in str(refused.value)
    store.remove_collection("bob", "papers")
    assert find(store, "greifswald") == ["papers:document"]  # alice's untouched


def test_a_failed_import_stores_nothing(store: LibraryStore, engine: Engine) -> None:
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        store.import_collection("alice", "papers", [DOCS[0], DOCS[0]])  # one path twice
    assert store.collections("alice") == []
    with engine.connect() as conn:
        for table in (library_items, library_texts, library_runs):
            assert conn.execute(select(func.count()).select_from(table)).scalar_one() == 0


def test_pages_are_found_by_any_word_with_their_text(store: LibraryStore) -> None:
    store.add("alice", entry("r1"))
    store.import_collection("alice", "papers", DOCS)
    query = parse_query("greifswald tokamaks").model_copy(update={"match": "any"})
    pages = {
        page.hit.source.url if page.hit.source else "": page.text
        for page in store.find_pages("alice", query)
    }
    assert pages["file:///papers/notes.docx"] == DOCS[1].text
    assert "Stellarators twist them" in pages["https://www.iter.org/machines"]
    assert store.find_pages("bob", query) == []
    assert store.find_pages("alice", parse_query("greifswald tokamaks")) == []  # every word


def test_a_run_is_shown_before_a_collection_of_its_name(store: LibraryStore) -> None:
    store.add("alice", entry("r1"))
    store.import_collection("alice", "r1", DOCS)
    assert store.show("alice", "r1").collection is None
