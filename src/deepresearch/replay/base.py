"""What a run's tape does to its ports: one small protocol, answered by the ``Recorder``
(each port wrapped so that what it answers is kept), the ``Player`` (ports answered from a
recording) and ``NoTape`` (every port as it is).

The composition root (``deepresearch.compose``) builds each port and hands it to the tape,
which returns the port the run uses, as one httpx transport wraps another: there is no
"are we recording?" branch anywhere else. A replay hands the composition root the
recording's own models, search provider and fetcher as given ports, so nothing real is
built; the ``Player`` then passes those through and answers the rest (the cache, the
council, the clock, the thread store, the library, the budget's decisions) from the
recording.

Kept free of LangChain at import time: a run that records nothing loads only this."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from pydantic import BaseModel

    from deepresearch.context import ThreadStore
    from deepresearch.fetch.base import Fetcher, ImageFetcher
    from deepresearch.librarydb.shelf import Shelf
    from deepresearch.llm.budget import BudgetGuard
    from deepresearch.llm.cache import ResponseCache
    from deepresearch.llm.endpoints import Endpoint
    from deepresearch.llm.gateway import Gateway
    from deepresearch.search.base import SearchProvider
    from deepresearch.search.fanout import OnFailure
    from deepresearch.settings_values import Role

#: builds the council's member models (spec -> model), called only when they are built
CouncilBuilder = Callable[[], "dict[str, BaseChatModel | None]"]


class RunTape(Protocol):
    """Takes each port of a run and returns the one to use; hears how the run goes."""

    # the ports ---------------------------------------------------------------------------
    def search_failures(self, on_failure: OnFailure) -> OnFailure: ...

    def search(self, search: SearchProvider) -> SearchProvider: ...

    def fetcher(self, fetcher: Fetcher) -> Fetcher: ...

    def images(self, images: ImageFetcher | None) -> ImageFetcher | None: ...

    def cache(self, cache: ResponseCache) -> ResponseCache: ...

    def model(self, model: BaseChatModel, name: str) -> BaseChatModel: ...

    def endpoints(self, endpoints: Mapping[Role, Endpoint]) -> Mapping[Role, Endpoint]: ...

    def council(self, build: CouncilBuilder) -> dict[str, BaseChatModel | None]: ...

    def budget(self, guard: BudgetGuard, gateway: Gateway) -> None: ...

    def clock(self, clock: Callable[[], datetime]) -> Callable[[], datetime]: ...

    def threads(self, stored: Callable[[], ThreadStore]) -> ThreadStore | None: ...

    def library(self, shelf: Callable[[], Shelf]) -> Shelf | None: ...

    # the run -----------------------------------------------------------------------------
    def begin(
        self,
        *,
        run_id: str,
        recipe: str,
        request: BaseModel,
        settings: BaseModel,
        gateway: Gateway,
        search: SearchProvider,
        council: Iterable[str],
    ) -> None: ...

    def waited(self) -> None: ...

    def cut(self, what: str) -> None: ...

    def answered(self, pause: str, kind: str, answer: Any) -> None: ...

    def finish(self, document: BaseModel) -> None: ...


class NoTape:
    """A run that is neither recorded nor replayed: every port as it was built."""

    def search_failures(self, on_failure: OnFailure) -> OnFailure:
        return on_failure

    def search(self, search: SearchProvider) -> SearchProvider:
        return search

    def fetcher(self, fetcher: Fetcher) -> Fetcher:
        return fetcher

    def images(self, images: ImageFetcher | None) -> ImageFetcher | None:
        return images

    def cache(self, cache: ResponseCache) -> ResponseCache:
        return cache

    def model(self, model: BaseChatModel, name: str) -> BaseChatModel:
        return model

    def endpoints(self, endpoints: Mapping[Role, Endpoint]) -> Mapping[Role, Endpoint]:
        return endpoints

    def council(self, build: CouncilBuilder) -> dict[str, BaseChatModel | None]:
        return build()

    def budget(self, guard: BudgetGuard, gateway: Gateway) -> None:
        pass

    def clock(self, clock: Callable[[], datetime]) -> Callable[[], datetime]:
        return clock

    def threads(self, stored: Callable[[], ThreadStore]) -> ThreadStore | None:
        return stored()

    def library(self, shelf: Callable[[], Shelf]) -> Shelf | None:
        return shelf()

    def begin(
        self,
        *,
        run_id: str,
        recipe: str,
        request: BaseModel,
        settings: BaseModel,
        gateway: Gateway,
        search: SearchProvider,
        council: Iterable[str],
    ) -> None:
        pass

    def waited(self) -> None:
        pass

    def cut(self, what: str) -> None:
        pass

    def answered(self, pause: str, kind: str, answer: Any) -> None:
        pass

    def finish(self, document: BaseModel) -> None:
        pass
