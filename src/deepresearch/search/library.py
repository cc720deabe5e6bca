"""The ``library`` search provider (issue 25): the run owner's library, its collections
of imported documents and the pages its past runs quoted, searched with the library's own
full-text index (``librarydb/search.py``: FTS5 or PostgreSQL). Each hit carries the
stored text as ``content``, so the run reads it without fetching, as it reads the local
corpus; the page is the one past quotes were verified against, at the time shown by
``library show``.

A run's query is a planner's: any of its words may match (the best first), unlike
``library search``, where every word must. The store is opened on the first search, in a
worker thread, and closed with the run (``close``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from deepresearch.core.library_query import MAX_LIMIT, MAX_QUERY_CHARS, query_words
from deepresearch.core.sanitize import clean_text
from deepresearch.errors import ProviderUnavailable
from deepresearch.librarydb.store import LibraryStore
from deepresearch.models import SearchHit
from deepresearch.models.library import LibraryPage, LibraryQuery

#: items searched for each page asked for: one page often has several matching quotes
ITEMS_PER_PAGE = 4
SNIPPET_CHARS = 300


class LibrarySearch:
    """Search ``owner``'s library, opened by ``opener`` when first needed."""

    name = "library"
    supports_operators = False

    def __init__(self, opener: Callable[[], Engine], owner: str) -> None:
        self._opener = opener
        self.owner = owner
        self._engine: Engine | None = None
        self._lock = asyncio.Lock()

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """At most ``limit`` distinct pages or documents holding any word of ``query``."""
        text = clean_text(query)[:MAX_QUERY_CHARS]
        words = query_words(text)
        if limit < 1 or not words:
            return []
        checked = LibraryQuery(
            text=text, words=words, limit=min(MAX_LIMIT, limit * ITEMS_PER_PAGE), match="any"
        )
        try:
            async with self._lock:
                pages = await asyncio.to_thread(self._find, checked)
        except SQLAlchemyError as exc:
            raise ProviderUnavailable("the library could not be read", provider=self.name) from exc
        return [self._hit(page, query, rank) for rank, page in enumerate(pages[:limit])]

    def _find(self, query: LibraryQuery) -> list[LibraryPage]:
        if self._engine is None:
            self._engine = self._opener()
        return LibraryStore(self._engine).find_pages(self.owner, query)

    def _hit(self, page: LibraryPage, query: str, rank: int) -> SearchHit:
        source = page.hit.source
        assert source is not None  # find_pages keeps hits with a source only
        return SearchHit(
            url=source.url,
            title=source.title,
            snippet=page.hit.text[:SNIPPET_CHARS],
            provider=self.name,
            query=query,
            rank=rank,
            content=page.text,
        )

    def close(self) -> None:
        """Let go of the library's connections (the run is over)."""
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
