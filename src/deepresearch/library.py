"""The library from Python (issue 25): every finished run's report, verified quotes,
claims and quoted pages, searchable, tagged, removable. The same store and rules as
``deepresearch library`` and ``/v1/library``.

>>> from deepresearch import library
>>> for hit in library.search("tokamak confinement", domain="iter.org", since="2026-01-01"):
...     print(hit.kind, hit.text, hit.source.url if hit.source else "", hit.run.run_id)
>>> library.show("run-1a2b3c4d5e6f").sources
>>> library.tag("run-1a2b3c4d5e6f", "fusion", "q3")
>>> library.rename_tag("q3", "q3-review")
>>> library.remove("run-1a2b3c4d5e6f")
>>> library.import_collection("~/papers", "papers")   # .md .txt .html .pdf .docx
>>> library.search("stellarator", collection="papers")

Every function takes ``settings`` (a ``Settings``, or anything with its ``data_dir``
and ``database_url``) or ``data_dir``, else the settings the
CLI would load, and works on the local user's library (the runs started on this machine:
the CLI, ``deepresearch.research``, MCP over stdio). A bad query, an unknown filter or a
run that is not in the library raises ``InvalidInput`` or ``RunNotFound`` before anything
is read or written."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from deepresearch.core.library_query import parse_query
from deepresearch.librarydb.engine import open_library
from deepresearch.librarydb.store import LibraryStore
from deepresearch.models.library import (
    LOCAL_OWNER,
    CollectionSummary,
    LibraryHit,
    LibrarySource,
    RunSummary,
    TagCount,
)
from deepresearch.settings_groups import Storage

__all__ = [
    "CollectionSummary",
    "LibraryHit",
    "RunSummary",
    "TagCount",
    "collections",
    "counts",
    "drop_tag",
    "import_collection",
    "open_store",
    "page",
    "reindex",
    "remove",
    "remove_collection",
    "rename_collection",
    "rename_tag",
    "search",
    "search_mode",
    "show",
    "tag",
    "tags",
    "untag",
]


@contextmanager
def open_store(settings: Storage) -> Iterator[LibraryStore]:
    """The library of ``settings`` (its data folder, or its PostgreSQL database)."""
    from deepresearch.embeddings import optional_embedder

    engine = open_library(settings)
    try:
        yield LibraryStore(engine, embedder=optional_embedder())
    finally:
        engine.dispose()


def _settings(settings: Storage | None, data_dir: Path | str | None) -> Storage:
    if settings is not None:
        return settings
    from deepresearch.compose.storage import default_storage

    return default_storage(data_dir)


def search(
    query: str,
    *,
    settings: Storage | None = None,
    data_dir: Path | str | None = None,
    **filters: object,
) -> list[LibraryHit]:
    """The items (quotes, claims, reports) matching ``query``, best first. ``filters``:
    ``since`` and ``until`` (dates), ``domain``, ``run``, ``tag``, ``recipe``, ``kind``
    (report, quote, claim or document), ``collection``, ``limit`` (1-100, default 20)."""
    checked = parse_query(query, filters)
    with open_store(_settings(settings, data_dir)) as store:
        return store.search(LOCAL_OWNER, checked)


def search_mode(*, settings: Storage | None = None, data_dir: Path | str | None = None) -> str:
    """How :func:`search` ranks here: ``"hybrid"`` (full text fused with embeddings,
    where the ``[embeddings]`` extra is installed) or ``"text"``."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.search_mode


def reindex(*, settings: Storage | None = None, data_dir: Path | str | None = None) -> int:
    """Embed the items stored before hybrid search was available; how many (0 without
    the ``[embeddings]`` extra). A hybrid search does this by itself the first time."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.reindex(LOCAL_OWNER)


def show(
    run_id: str, *, settings: Storage | None = None, data_dir: Path | str | None = None
) -> RunSummary:
    """What the library holds of run ``run_id``: question, tags, sources, counts, report."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.show(LOCAL_OWNER, run_id)


def page(
    run_id: str,
    source_id: str,
    *,
    settings: Storage | None = None,
    data_dir: Path | str | None = None,
) -> LibrarySource:
    """A page run ``run_id`` quoted, with the stored text its quotes were verified on."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.page(LOCAL_OWNER, run_id, source_id)


def remove(
    run_id: str, *, settings: Storage | None = None, data_dir: Path | str | None = None
) -> None:
    """Remove run ``run_id`` from the library (its checkpoint and report file stay)."""
    with open_store(_settings(settings, data_dir)) as store:
        store.remove(LOCAL_OWNER, run_id)


def tag(
    run_id: str,
    *tags: str,
    settings: Storage | None = None,
    data_dir: Path | str | None = None,
) -> list[str]:
    """Tag run ``run_id``; its tags after."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.tag(LOCAL_OWNER, run_id, tags)


def untag(
    run_id: str,
    tag: str,
    *,
    settings: Storage | None = None,
    data_dir: Path | str | None = None,
) -> list[str]:
    """Remove one tag from run ``run_id``; its tags after."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.untag(LOCAL_OWNER, run_id, tag)


def rename_tag(
    old: str,
    new: str,
    *,
    settings: Storage | None = None,
    data_dir: Path | str | None = None,
) -> int:
    """Rename a tag on every run; how many runs had it."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.rename_tag(LOCAL_OWNER, old, new)


def drop_tag(
    tag: str, *, settings: Storage | None = None, data_dir: Path | str | None = None
) -> int:
    """Remove a tag from every run; how many runs had it."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.drop_tag(LOCAL_OWNER, tag)


def tags(*, settings: Storage | None = None, data_dir: Path | str | None = None) -> list[TagCount]:
    """The tags in use, with how many runs have each."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.tags(LOCAL_OWNER)


def counts(
    *, settings: Storage | None = None, data_dir: Path | str | None = None
) -> dict[str, int]:
    """How many runs, sources, quotes and claims the library holds."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.counts(LOCAL_OWNER)


def import_collection(
    directory: Path | str,
    name: str,
    *,
    settings: Storage | None = None,
    data_dir: Path | str | None = None,
) -> CollectionSummary:
    """Read the .md, .txt, .html, .pdf and .docx files under ``directory`` into the new
    collection ``name``, in one transaction; ``skipped`` lists the files not read.
    ``InvalidInput`` for a bad or taken name, a missing folder or one with no readable
    document: then nothing is stored."""
    from deepresearch.core.library_query import normalize_collection
    from deepresearch.fetch.documents import read_folder

    checked = normalize_collection(name)
    found = read_folder(Path(directory))
    with open_store(_settings(settings, data_dir)) as store:
        made = store.import_collection(LOCAL_OWNER, checked, found.documents)
    return made.model_copy(update={"skipped": found.skipped})


def collections(
    *, settings: Storage | None = None, data_dir: Path | str | None = None
) -> list[CollectionSummary]:
    """The collections, by name, with how many documents each holds."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.collections(LOCAL_OWNER)


def rename_collection(
    old: str, new: str, *, settings: Storage | None = None, data_dir: Path | str | None = None
) -> None:
    """Rename a collection."""
    with open_store(_settings(settings, data_dir)) as store:
        store.rename_collection(LOCAL_OWNER, old, new)


def remove_collection(
    name: str, *, settings: Storage | None = None, data_dir: Path | str | None = None
) -> int:
    """Remove a collection and its documents; how many documents it held."""
    with open_store(_settings(settings, data_dir)) as store:
        return store.remove_collection(LOCAL_OWNER, name)
