"""Offline sentence embeddings for the deterministic support check (``core.support``).

``wordllama`` carries its 16 MB of weights inside the wheel, so it works with no network.
Its default ``WordLlama.load()`` looks for the tokenizer in the wrong folder and then tries
to download it; loading from the package folder with downloads disabled avoids that (see
../shared/design/OFFLINE-MODELS.md). The package is imported lazily: without it,
:func:`load_default_embedder` returns None and the checker runs on its other signals.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepresearch.core.support import Embedder
from deepresearch.errors import ConfigError

MAX_CHARS = 4000
"""Texts are clipped to this many characters: wordllama pads a batch to its longest text."""
BATCH_SIZE = 64

log = logging.getLogger(__name__)
_lock = threading.Lock()
_default: Embedder | None = None


class WordLlamaEmbedder:
    """256-dimensional WordLlama embeddings, loaded offline from the installed wheel."""

    def __init__(self) -> None:
        try:
            wordllama: Any = importlib.import_module("wordllama")
        except ImportError as exc:
            raise ConfigError(
                "embeddings need the 'wordllama' package, which is not installed",
                hint="pip install wordllama==0.4.0.post1",
            ) from exc
        package_dir = Path(wordllama.__file__).parent
        try:
            self._model: Any = wordllama.WordLlama.load(
                cache_dir=package_dir, disable_download=True
            )
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"the wordllama model could not be loaded from {package_dir}: {exc}",
                hint="reinstall wordllama==0.4.0.post1",
            ) from exc

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text (not normalized; an empty text gives a zero vector)."""
        if not texts:
            return []
        clipped = [text[:MAX_CHARS] for text in texts]
        order = sorted(range(len(clipped)), key=lambda i: len(clipped[i]))
        vectors = self._model.embed(
            [clipped[i] for i in order], norm=False, return_np=True, batch_size=BATCH_SIZE
        )
        out: list[list[float]] = [[] for _ in clipped]
        for position, index in enumerate(order):
            out[index] = [float(x) for x in vectors[position]]
        return out


def wordllama_available() -> bool:
    """Is the ``wordllama`` package installed (without importing it)?"""
    return importlib.util.find_spec("wordllama") is not None


def load_default_embedder() -> Embedder | None:
    """The shared WordLlama embedder, loaded once; None when wordllama is not installed."""
    global _default
    if not wordllama_available():
        return None
    with _lock:
        if _default is None:
            _default = WordLlamaEmbedder()
        return _default


def optional_embedder() -> Embedder | None:
    """The shared embedder where the ``[embeddings]`` extra is installed and loads, else
    None (a model that fails to load is logged): what turns the library's search hybrid
    (docs/library.md, "Hybrid search") without ever stopping a run or a search."""
    try:
        return load_default_embedder()
    except ConfigError as exc:
        log.warning("library search stays full text: %s", exc.message)
        return None
