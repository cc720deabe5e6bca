"""``deepresearch library reindex`` and hybrid ``library search`` (issue 25): items
stored without vectors are embedded once, and a search says it was hybrid. Skipped
without the ``[embeddings]`` extra (and says so)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from deepresearch.embeddings import wordllama_available
from deepresearch.librarydb.engine import open_library
from deepresearch.librarydb.store import LibraryStore
from deepresearch.models.library import LOCAL_OWNER, LibraryEntry, LibraryQuote, LibrarySource
from deepresearch.settings_groups import StorageSettings

from .conftest import cli

pytestmark = pytest.mark.skipif(
    not wordllama_available(), reason="the [embeddings] extra is missing"
)

LEAD = (
    "An academic degree is a qualification awarded to a student upon successful "
    "completion of a course of study in higher education"
)


def test_reindex_embeds_older_items_once_and_search_says_hybrid(tmp_path: Path) -> None:
    data = tmp_path / "data"
    engine = open_library(StorageSettings(data_dir=data, database_url=None, record_runs=False))
    try:  # stored as a library without the extra would: no vectors
        LibraryStore(engine).add(
            LOCAL_OWNER,
            LibraryEntry(
                run_id="old1",
                recipe="research",
                question="What is a degree?",
                finished_at=datetime(2026, 11, 1, tzinfo=UTC),
                sources=[LibrarySource(source_id="s1", url="https://w.org/d", text=LEAD)],
                quotes=[LibraryQuote(evidence_id="e1", source_id="s1", quote=LEAD)],
            ),
        )
    finally:
        engine.dispose()
    env = {"DEEPRESEARCH_DATA_DIR": str(data)}

    first = cli("library", "reindex", env=env)
    assert first.returncode == 0, first.stderr
    assert "embedded 1 item" in first.stderr
    again = cli("library", "reindex", env=env)
    assert "embedded 0 items" in again.stderr

    found = cli("library", "search", "College or university diploma", env=env)
    assert found.returncode == 0, found.stderr
    assert "[quote] An academic degree" in found.stdout
    assert "hybrid search" in found.stderr
