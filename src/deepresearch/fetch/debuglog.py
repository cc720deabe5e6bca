"""The ``debug_log`` setting: the fetcher's DEBUG details, written to a file.

Fetch errors shown to users (and to models) are short and never contain resolved or
internal addresses, exception text or server bodies. The details behind them (resolver
answers, refused addresses, exception reprs) go to the ``deepresearch.fetch`` logger at
DEBUG; ``fetch_debug_log(path)`` sends that logger's records to ``path`` while open.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOGGER_NAME = "deepresearch.fetch"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class _DebugLogHandler(logging.FileHandler):
    """Marks the handlers ``fetch_debug_log`` added (several runs may share a process)."""


_saved_level: list[int] = []


@contextmanager
def fetch_debug_log(path: Path) -> Iterator[None]:
    """Append the ``deepresearch.fetch`` DEBUG log to ``path`` until the block ends.

    Nested or concurrent uses (runs in one process) each get their file; the logger's
    level is raised to DEBUG by the first and restored when the last one ends.
    """
    path = path.expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = _DebugLogHandler(path, encoding="utf-8")
    handler.setLevel(logging.DEBUG)
    handler.setFormatter(logging.Formatter(_FORMAT))
    logger = logging.getLogger(LOGGER_NAME)
    if not _active(logger):
        _saved_level[:] = [logger.level]
        logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        handler.close()
        if not _active(logger) and _saved_level:
            logger.setLevel(_saved_level.pop())


def _active(logger: logging.Logger) -> bool:
    return any(isinstance(handler, _DebugLogHandler) for handler in logger.handlers)
