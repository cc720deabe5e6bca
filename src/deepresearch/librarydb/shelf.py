"""The library as a run's port (issue 25, reuse): ``Shelf.quotes(words, limit=...)`` gives
the owner's verified quotes that hold any of the words, each with its page's stored text
and the time it was read; ``Shelf.page(url)`` the latest read of one page. ``StoredShelf`` reads the library database; a run's recording
keeps what it answered and a replay serves that (``replay.ports``), so a replayed run
never reads a library.

A library that does not exist yet (a fresh data folder on SQLite) answers nothing without
creating it, and one that cannot be read costs the run nothing: it answers nothing and a
warning is logged, as keeping a run in it does (``compose.keep``)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from deepresearch.models.library import ShelvedPage, ShelvedQuote
from deepresearch.settings_groups import Storage

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from deepresearch.librarydb.store import LibraryStore

T = TypeVar("T")

log = logging.getLogger(__name__)


class Shelf(Protocol):
    """Where a run finds what its owner's earlier runs verified."""

    async def quotes(self, words: Sequence[str], *, limit: int) -> list[ShelvedQuote]: ...

    async def page(self, url: str) -> ShelvedPage | None: ...


class StoredShelf:
    """``owner``'s library in the database of ``storage``, opened on the first question
    and closed with the run (``close``)."""

    def __init__(self, storage: Storage, owner: str) -> None:
        self.storage = storage
        self.owner = owner
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    async def quotes(self, words: Sequence[str], *, limit: int) -> list[ShelvedQuote]:
        return await asyncio.to_thread(self._quotes, list(words), limit)

    async def page(self, url: str) -> ShelvedPage | None:
        return await asyncio.to_thread(self._page, url)

    def _quotes(self, words: list[str], limit: int) -> list[ShelvedQuote]:
        return self._guarded(lambda store: store.shelved(self.owner, words, limit=limit), [])

    def _page(self, url: str) -> ShelvedPage | None:
        return self._guarded(lambda store: store.latest_page(self.owner, url), None)

    def _guarded(self, read: Callable[[LibraryStore], T], nothing: T) -> T:
        """``read`` on the library, or ``nothing`` when there is no library yet or it
        cannot be read (logged)."""
        from sqlalchemy.exc import SQLAlchemyError

        from deepresearch.errors import DeepResearchError
        from deepresearch.librarydb.store import LibraryStore

        try:
            engine = self._open()
            if engine is None:
                return nothing
            return read(LibraryStore(engine))
        except (SQLAlchemyError, OSError, DeepResearchError) as exc:
            log.warning("the library could not be read (%s): nothing reused", type(exc).__name__)
            return nothing

    def _open(self) -> Engine | None:
        from deepresearch.librarydb.engine import library_url, open_library

        with self._lock:
            if self._engine is None:
                url = library_url(self.storage)
                if (
                    url.startswith("sqlite")
                    and not (self.storage.data_dir / "library.sqlite3").is_file()
                ):
                    return None  # no run was kept yet: nothing to offer, nothing created
                self._engine = open_library(self.storage)
            return self._engine

    def close(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None
