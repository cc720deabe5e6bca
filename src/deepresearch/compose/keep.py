"""Keeping a finished run in its owner's library (issue 25): the runner calls
:func:`keep_in_library` for every run that ends with its document, whichever front end
started it (the CLI, the Python library, MCP, a service worker), before it announces
``run_completed``, so a search right after finds it.

The recipe says what its run adds (``Recipe.library_entry``); the pages' fetch times come
from this process's ``source_fetched`` events. A library that cannot be written costs the
run nothing: the report stands, a warning is logged, and ``deepresearch library`` says
nothing of that run."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from deepresearch.errors import DeepResearchError
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import SourceFetched
from deepresearch.recipes.base import Recipe
from deepresearch.settings_groups import Storage

log = logging.getLogger(__name__)


def fetch_times(history: Sequence[RunEvent]) -> dict[str, datetime]:
    """When this process read each URL (its first ``source_fetched`` event)."""
    times: dict[str, datetime] = {}
    for event in history:
        if isinstance(event.data, SourceFetched):
            times.setdefault(event.data.url, event.ts)
    return times


def keep_in_library(
    storage: Storage,
    owner: str,
    recipe: Recipe[Any, Any],
    values: Mapping[str, Any],
    history: Sequence[RunEvent],
) -> bool:
    """Add the finished run in ``values`` to ``owner``'s library; False when the recipe
    keeps nothing or the library could not be written (logged)."""
    entry = recipe.library_entry(values, fetch_times(history))
    if entry is None:
        return False
    from deepresearch.embeddings import optional_embedder
    from deepresearch.librarydb.engine import open_library
    from deepresearch.librarydb.store import LibraryStore

    try:
        engine = open_library(storage)
        try:
            # with the [embeddings] extra each item is stored with its vector
            LibraryStore(engine, embedder=optional_embedder()).add(owner, entry)
        finally:
            engine.dispose()
    except (SQLAlchemyError, OSError, DeepResearchError) as exc:
        log.warning("run %s was not added to the library (%s)", entry.run_id, type(exc).__name__)
        return False
    return True
