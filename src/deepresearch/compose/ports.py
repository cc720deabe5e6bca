"""The ports a run uses, built from Settings (or taken as given) in small named steps: the
HTTP client, the search provider, the fetcher with its page cache, the budget guard, the
response cache, the gateway (its models pass the preflight here), the council, the
owner's library and the context. One place, so the research run and the recipes build them the same way.

Every port goes through the run's tape once (``replay.base.RunTape``): the ``Recorder``
wraps it, the ``Player`` answers it from a recording, ``NoTape`` leaves it as built.

Models built from Settings pass the preflight (``llm.preflight``) here, before the run
does anything else: an unreachable model server stops the run with a ConfigError (exit 2)
unless ``on_model_unavailable = "extractive"``; so does a model that refuses its key or is
not found at its first call after the preflight passed (the gateway's
``stop_when_unavailable``)."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
from langchain_core.language_models import BaseChatModel

from deepresearch.compose.signals import (
    ModelCalls,
    announce_exhausted,
    emit_queue_event,
    search_warnings,
)
from deepresearch.context import RunContext, RunLedger, utc_now
from deepresearch.events import EventBus
from deepresearch.fetch.base import Fetcher, ImageFetcher
from deepresearch.fetch.cache import CachingFetcher, PageCache
from deepresearch.fetch.debuglog import fetch_debug_log
from deepresearch.fetch.extract_pool import refuse_in_worker_start
from deepresearch.fetch.http_fetcher import HttpFetcher
from deepresearch.fetch.tls import tls_context
from deepresearch.librarydb.shelf import Shelf, StoredShelf
from deepresearch.llm.budget import BudgetGuard
from deepresearch.llm.cache import ResponseCache
from deepresearch.llm.council import build_council_models
from deepresearch.llm.endpoints import endpoint_for, endpoint_of_model
from deepresearch.llm.gateway import Gateway, QueueEvent
from deepresearch.llm.preflight import require_models
from deepresearch.models.event_payloads import ModelUnavailableWarning
from deepresearch.models.library import LOCAL_OWNER
from deepresearch.recipes.base import Followups
from deepresearch.replay.base import NoTape, RunTape
from deepresearch.search.base import SearchProvider
from deepresearch.search.fanout import OnFailure
from deepresearch.search.registry import LibraryFactory, build_search_provider
from deepresearch.settings import Settings
from deepresearch.settings_groups import FetchPolicy, ModelSettings, SettingsGroups
from deepresearch.settings_values import ROLES, Role

__all__ = ["emit_queue_event", "open_context"]


async def open_context(
    stack: AsyncExitStack,
    settings: Settings,
    bus: EventBus,
    models: Mapping[Role, BaseChatModel | None] | None,
    search: SearchProvider | None,
    fetcher: Fetcher | None,
    tape: RunTape | None = None,
    *,
    followups: Followups | None = None,
    owner: str = LOCAL_OWNER,
) -> RunContext:
    """The run's ports; everything opened is closed with ``stack``. ``owner`` is whose
    library the run looks in first (unless ``use_library`` is off) and whose library
    ``--search library`` reads."""
    refuse_in_worker_start()  # a script without a main guard, re-imported by a worker
    tape = tape or NoTape()
    groups = SettingsGroups.of(settings)
    client = await open_client(stack, groups)
    ledger = RunLedger()  # the run's changing counts: its failed search providers here
    on_failure = tape.search_failures(search_warnings(bus, ledger.search_errors))
    if search is None:
        search = build_search(groups, client, on_failure, library_opener(stack, groups, owner))
    fetcher, images = await open_fetcher(stack, groups.fetch, fetcher, groups.storage.data_dir)
    search, fetcher, images = tape.search(search), tape.fetcher(fetcher), tape.images(images)
    guard = open_budget(bus, groups)  # its clock starts with the run
    cache = tape.cache(open_cache(stack, groups.storage.data_dir))
    calls = ModelCalls(bus, guard)
    secrets = tuple(settings.secrets())
    gateway = await open_gateway(groups.models, bus, models, secrets, cache, guard, calls, tape)
    guard.require_prices(
        [(gateway.model_name(r), gateway.endpoint(r)) for r in ROLES if gateway.has_model(r)]
        + [(spec, endpoint_for(spec, groups.models)) for spec in groups.models.council_models]
    )
    council = tape.council(
        lambda: build_council_models(groups.models, council=groups.policy.council)
    )
    gateway.wrap_models(tape.model)
    tape.budget(guard, gateway)  # the budget's decisions kept, or answered from a recording
    return RunContext(
        groups=groups,
        gateway=gateway,
        search=search,
        fetcher=fetcher,
        images=images,
        bus=bus,
        council_models=council,
        ledger=ledger,
        secrets=secrets,
        clock=tape.clock(utc_now),
        cut=tape.cut,
        threads=None
        if followups is None
        else tape.threads(lambda: followups.store(groups.storage)),
        library=tape.library(lambda: open_shelf(stack, groups, owner))
        if groups.policy.use_library
        else None,
    )


def open_shelf(stack: AsyncExitStack, groups: SettingsGroups, owner: str) -> Shelf:
    """``owner``'s library as the run's port, closed with the run."""
    shelf = StoredShelf(groups.storage, owner)
    stack.callback(shelf.close)
    return shelf


async def open_client(stack: AsyncExitStack, groups: SettingsGroups) -> httpx.AsyncClient:
    """The HTTP client the search providers share (the fetcher pins its own)."""
    client = httpx.AsyncClient(
        headers={"User-Agent": groups.fetch.user_agent},
        timeout=groups.search.search_timeout_s,
        verify=tls_context(),  # made once per process, not for every run (fetch/tls.py)
    )
    return await stack.enter_async_context(client)


def build_search(
    groups: SettingsGroups,
    client: httpx.AsyncClient,
    on_failure: OnFailure,
    library: LibraryFactory | None = None,
) -> SearchProvider:
    """The provider(s) ``search`` names; ``on_failure`` hears of one failing among several."""
    return build_search_provider(
        groups.search,
        client,
        data_dir=groups.storage.data_dir,
        library_factory=library,
        on_failure=on_failure,
    )


def library_opener(
    stack: AsyncExitStack | None, groups: SettingsGroups, owner: str | None
) -> LibraryFactory:
    """How the ``library`` provider is built: over ``owner``'s library (None: the local
    user's) where ``groups.storage`` keeps it, closed with ``stack`` when one is given."""

    def build() -> SearchProvider:
        from deepresearch.librarydb.engine import open_library
        from deepresearch.search.library import LibrarySearch

        provider = LibrarySearch(
            lambda: open_library(groups.storage), owner if owner is not None else LOCAL_OWNER
        )
        if stack is not None:
            stack.callback(provider.close)
        return provider

    return build


async def open_fetcher(
    stack: AsyncExitStack, policy: FetchPolicy, fetcher: Fetcher | None, data_dir: Path
) -> tuple[Fetcher, ImageFetcher | None]:
    """The given fetcher, or an SSRF-safe HTTP one; behind the page cache when it keeps
    pages (``page_cache_ttl_s``). Beside it, the same fetcher for a report's figures (its
    image rules; never cached), or None when the given one fetches no images."""
    if policy.debug_log is not None:
        stack.enter_context(fetch_debug_log(policy.debug_log))
    if fetcher is None:  # its own pinned client: never the search providers' one
        fetcher = await stack.enter_async_context(
            HttpFetcher(
                allow_hosts=policy.allow_hosts,
                timeout_s=policy.fetch_timeout_s,
                max_bytes=policy.max_page_bytes,
                user_agent=policy.user_agent,
                respect_robots=policy.respect_robots,
                max_per_host=policy.fetch_per_host,
                min_interval_s=policy.fetch_min_interval_s,
            )
        )
    images = fetcher if isinstance(fetcher, ImageFetcher) else None
    if policy.page_cache_ttl_s > 0:
        pages = PageCache(data_dir / "pages.sqlite3", ttl_s=policy.page_cache_ttl_s)
        stack.callback(pages.close)
        fetcher = CachingFetcher(fetcher, pages)
    return fetcher, images


def open_budget(bus: EventBus, groups: SettingsGroups) -> BudgetGuard:
    """The run's budgets, announcing the one that ends it."""
    guard = BudgetGuard.from_settings(groups.budget)
    announce_exhausted(bus, guard)
    return guard


def open_cache(stack: AsyncExitStack, data_dir: Path) -> ResponseCache:
    """The model response cache, so a resumed or repeated run does not pay twice."""
    cache = ResponseCache(data_dir / "model-cache.sqlite3")
    stack.callback(cache.close)
    return cache


async def open_gateway(
    settings: ModelSettings,
    bus: EventBus,
    models: Mapping[Role, BaseChatModel | None] | None,
    secrets: tuple[str, ...],
    cache: ResponseCache,
    guard: BudgetGuard,
    calls: ModelCalls,
    tape: RunTape,
) -> Gateway:
    """The gateway over the given models, or over the ones ``settings`` name (which pass
    the preflight: an unavailable one is a ConfigError, or a warning and a fallback)."""

    def on_queue(event: QueueEvent) -> None:
        emit_queue_event(bus, event)

    if models is None:
        gateway = Gateway.from_settings(
            settings, secrets=secrets, budget=guard, on_call=calls, cache=cache, on_queue=on_queue
        )
        calls.gateway = gateway
        await require_available(settings, gateway, bus)
        gateway.stop_when_unavailable = settings.on_model_unavailable == "fail"
        return gateway
    endpoints = {
        role: endpoint_of_model(model, settings)
        for role, model in models.items()
        if model is not None
    }
    gateway = Gateway(
        dict(models),
        model_names={role: _model_name(models.get(role)) for role in ROLES},
        timeout_s=settings.model_timeout_s,
        max_retries=settings.model_max_retries,
        secrets=secrets,
        on_call=calls,
        cache=cache,
        endpoints=dict(tape.endpoints(endpoints)),
        wait_timeout_s=settings.model_wait_timeout_s,
        on_queue=on_queue,
        budget=guard,
    )
    calls.gateway = gateway
    return gateway


async def require_available(settings: ModelSettings, gateway: Gateway, bus: EventBus) -> None:
    """The preflight of the models ``settings`` name, each unavailable one a warning."""
    for problem in await require_models(settings, gateway):
        bus.emit(
            ModelUnavailableWarning(
                code="model_unavailable",
                endpoint=problem.endpoint.label,
                roles=list(problem.roles),
                reason=problem.reason,
            ),
            message=f"Running without a model: {problem.describe()}",
        )


def _model_name(model: BaseChatModel | None) -> str:
    if model is None:
        return "none"
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    return str(name or model._llm_type)
