"""The ``library`` search provider (issue 25): the owner's collections and the pages past
runs quoted, found by any word through the library's full-text index, each hit carrying
its stored text (so nothing is fetched), and never another owner's."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from deepresearch.librarydb.engine import open_library
from deepresearch.librarydb.store import LibraryStore
from deepresearch.models.library import (
    LibraryDocument,
    LibraryEntry,
    LibraryQuote,
    LibrarySource,
)
from deepresearch.search.library import LibrarySearch
from deepresearch.settings_groups import StorageSettings

PAGE = "Tidal lagoons hold the sea behind a wall. Their turbines turn twice a day."


def _library(tmp_path: Path) -> StorageSettings:
    storage = StorageSettings(data_dir=tmp_path, database_url=None, record_runs=False)
    engine = open_library(storage)
    store = LibraryStore(engine)
    document = LibraryDocument(path="/notes/a.md", title="A", text="Tidal power turns turbines.")
    store.import_collection("alice", "energy", [document])
    store.add(
        "alice",
        LibraryEntry(
            run_id="r1",
            recipe="research",
            question="How do tidal lagoons work?",
            finished_at=datetime(2026, 11, 1, tzinfo=UTC),
            sources=[LibrarySource(source_id="s1", url="https://tides.example/lagoons", text=PAGE)],
            quotes=[
                LibraryQuote(
                    evidence_id="e1",
                    source_id="s1",
                    quote="Their turbines turn twice a day.",
                )
            ],
        ),
    )
    engine.dispose()
    return storage


async def _search(storage: StorageSettings, owner: str, query: str) -> list[tuple[str, str]]:
    provider = LibrarySearch(lambda: open_library(storage), owner)
    try:
        hits = await provider.search(query, limit=5)
    finally:
        provider.close()
    assert all(hit.provider == "library" for hit in hits)
    return [(hit.url, hit.content or "") for hit in hits]


async def test_collections_and_past_pages_are_found_with_their_text(tmp_path: Path) -> None:
    storage = _library(tmp_path)
    found = dict(await _search(storage, "alice", "tidal turbines nowhere-word"))  # any word
    assert found == {
        "file:///notes/a.md": "Tidal power turns turbines.",
        "https://tides.example/lagoons": PAGE,
    }
    assert await _search(storage, "alice", "?!") == []


async def test_another_owner_finds_nothing(tmp_path: Path) -> None:
    storage = _library(tmp_path)
    assert await _search(storage, "bob", "tidal turbines") == []


def test_the_registry_builds_it_only_where_a_library_is_given(tmp_path: Path) -> None:
    import httpx
    import pytest

    from deepresearch.errors import ConfigError
    from deepresearch.search.registry import build_search_providers
    from deepresearch.settings import load_settings

    settings = load_settings(search="library", data_dir=tmp_path)
    client = httpx.AsyncClient()
    with pytest.raises(ConfigError, match="not available here"):
        build_search_providers(settings, client, data_dir=tmp_path)
    built: list[LibrarySearch] = []

    def factory() -> LibrarySearch:
        storage = StorageSettings(data_dir=tmp_path, database_url=None, record_runs=False)
        built.append(LibrarySearch(lambda: open_library(storage), "x"))
        return built[-1]

    (provider,) = build_search_providers(
        settings, client, data_dir=tmp_path, library_factory=factory
    )
    assert provider is built[0] and provider.name == "library"
