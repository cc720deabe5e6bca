"""Hybrid library search (``librarydb/vectors.py``) on real text, on SQLite and
PostgreSQL: a paraphrase that shares no word with its quote is found where full text
finds nothing, every filter applies to the embedding ranking too, one owner never sees
another's rows, items stored before are embedded on the first hybrid search, and a
removed run is gone from the cached matrix at once.

The quotes are the lead sentences of Wikipedia's Vital Articles
(../shared/data/wiki/vital-articles-summaries-en.json); without that folder, or without
the ``[embeddings]`` extra, these tests are skipped (and say so)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from deepresearch.core.library_query import parse_query
from deepresearch.embeddings import load_default_embedder, wordllama_available
from deepresearch.librarydb.engine import migrate_library
from deepresearch.librarydb.store import LibraryStore
from deepresearch.librarydb.tables import library_vectors
from deepresearch.models.library import LibraryEntry, LibraryQuote, LibrarySource
from deepresearch.sqldb import make_engine

DATA = Path(__file__).resolve().parents[3] / "shared/data/wiki/vital-articles-summaries-en.json"
ARTICLES = 600
PER_RUN = 20
#: the article's own short description, which shares no word with its lead sentence
QUERY = "College or university diploma"
TARGET = "Academic degree"

pytestmark = [
    pytest.mark.skipif(not DATA.exists(), reason=f"the real data is not at {DATA}"),
    pytest.mark.skipif(not wordllama_available(), reason="the [embeddings] extra is missing"),
]


def _leads() -> list[tuple[str, str]]:
    summaries = json.loads(DATA.read_text(encoding="utf-8"))
    titles = sorted(summaries)[:ARTICLES]
    return [(title, summaries[title]["extract"].split(". ")[0]) for title in titles]


def _entries(prefix: str) -> list[LibraryEntry]:
    leads = _leads()
    entries = []
    for n in range(0, len(leads), PER_RUN):
        run = n // PER_RUN
        chunk = leads[n : n + PER_RUN]
        domain = f"site{run % 3}.org"
        entries.append(
            LibraryEntry(
                run_id=f"{prefix}-{run:02d}",
                recipe="research" if run % 2 == 0 else "employer",
                question=f"Vital articles, part {run}",
                finished_at=datetime(2026, 10, 1 + run, 12, tzinfo=UTC),
                sources=[
                    LibrarySource(
                        source_id=f"s{k}",
                        url=f"https://{domain}/{title.replace(' ', '_')}",
                        title=title,
                        domain=domain,
                        text=lead,
                    )
                    for k, (title, lead) in enumerate(chunk)
                ],
                quotes=[
                    LibraryQuote(evidence_id=f"e{k}", source_id=f"s{k}", quote=lead)
                    for k, (_title, lead) in enumerate(chunk)
                ],
            )
        )
    return entries


@pytest.fixture
def engine(library_url: str) -> Iterator[Engine]:
    engine = make_engine(library_url)
    migrate_library(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def hybrid(engine: Engine) -> LibraryStore:
    store = LibraryStore(engine, embedder=load_default_embedder())
    for entry in _entries("alice"):
        store.add("alice", entry)
    return store


def titles(store: LibraryStore, text: str, owner: str = "alice", **filters: object) -> list[str]:
    return [
        hit.source.title if hit.source else ""
        for hit in store.search(owner, parse_query(text, filters))
    ]


def _target_run() -> str:
    index = [title for title, _ in _leads()].index(TARGET)
    return f"alice-{index // PER_RUN:02d}"


def test_a_paraphrase_with_no_shared_word_is_found_where_full_text_finds_nothing(
    hybrid: LibraryStore, engine: Engine
) -> None:
    lead = dict(_leads())[TARGET]
    words = set(re.findall(r"\w+", QUERY.lower()))
    assert not words & set(re.findall(r"\w+", lead.lower()))
    text_only = LibraryStore(engine)
    assert text_only.search_mode == "text"
    assert titles(text_only, QUERY) == []
    assert hybrid.search_mode == "hybrid"
    found = titles(hybrid, QUERY, limit=5)
    assert found[0] == TARGET
    # a word query still ranks its full-text matches first
    assert titles(hybrid, "tokamak") == titles(text_only, "tokamak") == []
    assert titles(hybrid, "algebra")[:1] == titles(text_only, "algebra")[:1]


def test_every_filter_applies_to_the_embedding_ranking(hybrid: LibraryStore) -> None:
    run = _target_run()
    number = int(run.split("-")[1])
    domain = f"site{number % 3}.org"
    day = f"2026-10-{1 + number:02d}"
    recipe = "research" if number % 2 == 0 else "employer"
    hybrid.tag("alice", run, ["degrees"])
    matching: dict[str, object] = {
        "run": run,
        "domain": domain,
        "since": day,
        "until": day,
        "recipe": recipe,
        "tag": "degrees",
        "kind": "quote",
    }
    for name, value in matching.items():
        assert TARGET in titles(hybrid, QUERY, **{name: value}), name
    other = f"alice-{(number + 1):02d}"
    excluding: dict[str, object] = {
        "run": other,
        "domain": f"site{(number + 1) % 3}.org",
        "since": f"2026-10-{2 + number:02d}",
        "recipe": "employer" if recipe == "research" else "research",
        "tag": "nothing-has-this",
        "kind": "claim",
        "collection": "papers",
    }
    for name, value in excluding.items():
        assert TARGET not in titles(hybrid, QUERY, **{name: value}), name
    hits = hybrid.search("alice", parse_query(QUERY, {"run": other}))
    assert {hit.run.run_id for hit in hits} <= {other}


def test_one_owner_never_sees_another_owners_rows(hybrid: LibraryStore) -> None:
    assert titles(hybrid, QUERY, owner="bob") == []
    bob_entries = _entries("bob")[:2]  # articles 0-39: not the target
    for entry in bob_entries:
        hybrid.add("bob", entry)
    bob_titles = {source.title for entry in bob_entries for source in entry.sources}
    hits = hybrid.search("bob", parse_query(QUERY, {"limit": 100}))
    assert {hit.run.run_id for hit in hits} <= {"bob-00", "bob-01"}
    assert {hit.source.title for hit in hits if hit.source} <= bob_titles
    assert TARGET not in titles(hybrid, QUERY, owner="bob", limit=100)
    # alice's matrix is still hers after bob's was loaded
    assert titles(hybrid, QUERY, limit=5)[0] == TARGET
    with pytest.raises(Exception, match="not in your library"):
        hybrid.tag("bob", _target_run(), ["mine"])


def test_items_stored_before_are_embedded_on_the_first_hybrid_search(engine: Engine) -> None:
    text_only = LibraryStore(engine)
    for entry in _entries("alice"):
        text_only.add("alice", entry)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(library_vectors)).scalar() == 0
    hybrid = LibraryStore(engine, embedder=load_default_embedder())
    assert titles(hybrid, QUERY, limit=5)[0] == TARGET
    with engine.connect() as conn:
        stored = conn.execute(select(func.count()).select_from(library_vectors)).scalar()
    assert stored == ARTICLES
    assert hybrid.reindex("alice") == 0
    assert text_only.reindex("alice") == 0


def test_a_removed_run_is_gone_from_hybrid_results_at_once(hybrid: LibraryStore) -> None:
    assert titles(hybrid, QUERY, limit=5)[0] == TARGET  # the matrix is cached now
    hybrid.remove("alice", _target_run())
    assert TARGET not in titles(hybrid, QUERY, limit=100)
    hybrid.add("alice", _entries("alice")[int(_target_run().split("-")[1])])
    assert titles(hybrid, QUERY, limit=5)[0] == TARGET
    # the rows appended to the cached matrix know their run
    assert titles(hybrid, QUERY, run=_target_run())[0] == TARGET
    assert TARGET not in titles(hybrid, QUERY, run="alice-00")
