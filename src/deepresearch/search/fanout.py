"""Several providers as one: every query goes to each of them at once and their lists are
fused with reciprocal rank fusion (``core.fusion``), so a local corpus and the web (or the
web and arXiv) answer in one run.

A provider that fails is reported to ``on_failure`` (the run turns it into a warning
event) and the others' hits are used; only when every provider fails does the search
fail, with one ``ProviderError`` that names each failure. Each fused hit's ``providers``
names every provider that returned it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from deepresearch.core.fusion import DEFAULT_K, fuse
from deepresearch.errors import ProviderAuthError, ProviderError, ProviderUnavailable
from deepresearch.models import SearchHit
from deepresearch.search.base import SearchProvider

OnFailure = Callable[[ProviderError], None]


class FanOutSearch:
    """Query ``providers`` in parallel and fuse their results (RRF, ``k``)."""

    def __init__(
        self,
        providers: Sequence[SearchProvider],
        *,
        k: float = DEFAULT_K,
        on_failure: OnFailure | None = None,
    ) -> None:
        if len(providers) < 2:
            raise ValueError("a fan-out search needs at least two providers")
        self.providers = tuple(providers)
        #: the providers as the user listed them, e.g. "local,searxng"
        self.name = ",".join(provider.name for provider in self.providers)
        # a query with operators reaches every provider: only when all understand them
        self.supports_operators = all(p.supports_operators for p in self.providers)
        self._k = k
        self._on_failure = on_failure

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """At most ``limit`` fused hits; each provider is asked for ``limit`` hits."""
        if limit <= 0:
            return []
        outcomes = await asyncio.gather(
            *(self._one(provider, query, limit) for provider in self.providers)
        )
        lists = [hits for hits in outcomes if not isinstance(hits, ProviderError)]
        failures = [error for error in outcomes if isinstance(error, ProviderError)]
        if not lists:
            raise _all_failed(self.name, failures)
        for error in failures:
            if self._on_failure is not None:
                self._on_failure(error)
        return fuse(lists, k=self._k, limit=limit)

    async def _one(
        self, provider: SearchProvider, query: str, limit: int
    ) -> list[SearchHit] | ProviderError:
        try:
            return await provider.search(query, limit=limit)
        except ProviderError as exc:
            return exc


def _all_failed(name: str, failures: list[ProviderError]) -> ProviderError:
    """One error for a search that failed everywhere: the kind all failures share (else
    a refused key if there was one, else "unavailable"), naming each provider's problem."""
    kinds = {type(error) for error in failures}
    if len(kinds) == 1:
        kind: type[ProviderError] = kinds.pop()
    elif ProviderAuthError in kinds:
        kind = ProviderAuthError
    else:
        kind = ProviderUnavailable
    message = "every search provider failed: " + "; ".join(
        f"{error.provider}: {error.message}" for error in failures
    )
    hints = list(dict.fromkeys(error.hint for error in failures if error.hint))
    return kind(message, provider=name, hint="; ".join(hints))
