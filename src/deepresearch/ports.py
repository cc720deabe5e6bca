"""The ports a run uses, built from Settings (or taken as given): the search provider,
the fetcher (with its page cache) and the model gateway (with its response cache). One
place, so the research run and the recipes build them the same way.

Models built from Settings pass the preflight (``llm.preflight``) here, before the run
does anything else: an unreachable model server stops the run with a ConfigError (exit 2)
unless ``on_model_unavailable = "extractive"``.

With a ``Recorder`` (``replay.ports``) every port's answers go to the run's recording; with
a ``Player`` the ports answer from one (the runner hands its models, search and fetcher in,
and the response cache, council, clock and a follow-up's parent are the recording's
here)."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AsyncExitStack

import httpx
from langchain_core.language_models import BaseChatModel

from deepresearch.context import RunContext
from deepresearch.errors import ProviderError
from deepresearch.events import EventBus
from deepresearch.fetch.base import Fetcher
from deepresearch.fetch.cache import CachingFetcher, PageCache
from deepresearch.fetch.debuglog import fetch_debug_log
from deepresearch.fetch.extract_pool import refuse_in_worker_start
from deepresearch.fetch.http_fetcher import HttpFetcher
from deepresearch.llm.budget import BudgetGuard
from deepresearch.llm.cache import ResponseCache
from deepresearch.llm.council import build_council_models
from deepresearch.llm.endpoints import endpoint_for, endpoint_of_model
from deepresearch.llm.gateway import Gateway, QueueEvent
from deepresearch.llm.preflight import require_models
from deepresearch.models import ModelCall
from deepresearch.models.event_payloads import (
    BudgetExhausted,
    ModelCalled,
    ModelCallStarted,
    ModelCallWaiting,
    ModelUnavailableWarning,
    ModelWaitTimeoutWarning,
    SearchProviderFailedWarning,
)
from deepresearch.replay.ports import Player, Recorder
from deepresearch.search.base import SearchProvider
from deepresearch.search.fanout import OnFailure
from deepresearch.search.registry import build_search_provider
from deepresearch.settings import Settings
from deepresearch.settings_values import ROLES, Role


async def open_context(
    stack: AsyncExitStack,
    settings: Settings,
    bus: EventBus,
    models: Mapping[Role, BaseChatModel | None] | None,
    search: SearchProvider | None,
    fetcher: Fetcher | None,
    tape: Recorder | Player | None = None,
) -> RunContext:
    """The run's ports; everything opened is closed with ``stack``."""
    refuse_in_worker_start()  # a script without a main guard, re-imported by a worker
    client = await stack.enter_async_context(
        httpx.AsyncClient(
            headers={"User-Agent": settings.user_agent}, timeout=settings.search_timeout_s
        )
    )
    search_errors: list[str] = []  # the run's: RunContext.search_errors
    on_failure = _search_warnings(bus, search_errors)
    if isinstance(tape, Recorder):
        on_failure = tape.search_failures(on_failure)
    elif isinstance(tape, Player):  # the recorded failures, told again as the run told them
        tape.on_search_failure = on_failure
    if search is None:
        search = build_search_provider(settings, client, on_failure=on_failure)
    if settings.debug_log is not None:
        stack.enter_context(fetch_debug_log(settings.debug_log))
    if fetcher is None:  # its own pinned client: never the shared one above
        fetcher = await stack.enter_async_context(
            HttpFetcher(
                allow_hosts=settings.allow_hosts,
                timeout_s=settings.fetch_timeout_s,
                max_bytes=settings.max_page_bytes,
                user_agent=settings.user_agent,
                respect_robots=settings.respect_robots,
                max_per_host=settings.fetch_per_host,
                min_interval_s=settings.fetch_min_interval_s,
            )
        )
    if settings.page_cache_ttl_s > 0:
        pages = PageCache(settings.data_dir / "pages.sqlite3", ttl_s=settings.page_cache_ttl_s)
        stack.callback(pages.close)
        fetcher = CachingFetcher(fetcher, pages)
    if isinstance(tape, Recorder):
        search, fetcher = tape.search(search), tape.fetcher(fetcher)

    guard = BudgetGuard.from_settings(settings)  # its clock starts with the run

    def on_call(call: ModelCall) -> None:
        bus.emit(
            ModelCalled(
                role=call.role,
                model=call.model,
                input_tokens=call.input_tokens,
                output_tokens=call.output_tokens,
                latency_s=call.latency_s,
                ok=call.ok,
                attempts=call.attempts,
                usage_source=call.usage_source,
                cost_usd=call.cost_usd,
                budget=guard.view(gateway.usage),  # spend against the budgets, so far
            ),
            stage=call.stage,
            message=f"{call.role} model call ({call.model})",
        )

    def on_exhausted(name: str, message: str, spend: dict[str, float | int | None]) -> None:
        bus.emit(BudgetExhausted(budget=name, spend=dict(spend)), message=message)

    guard.on_exhausted = on_exhausted

    def on_queue(event: QueueEvent) -> None:
        emit_queue_event(bus, event)

    cache = ResponseCache(settings.data_dir / "model-cache.sqlite3")
    stack.callback(cache.close)
    if tape is not None:
        cache = tape.cache(cache)
    if models is not None:
        gateway = Gateway(
            dict(models),
            model_names={role: _model_name(models.get(role)) for role in ROLES},
            timeout_s=settings.model_timeout_s,
            max_retries=settings.model_max_retries,
            secrets=settings.secrets(),
            on_call=on_call,
            cache=cache,
            endpoints=(isinstance(tape, Player) and tape.endpoints())
            or {
                role: endpoint_of_model(model, settings)
                for role, model in models.items()
                if model is not None
            },
            wait_timeout_s=settings.model_wait_timeout_s,
            on_queue=on_queue,
            budget=guard,
        )
    else:
        gateway = Gateway.from_settings(settings, on_call=on_call, cache=cache, on_queue=on_queue)
        gateway.budget = guard
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
    guard.require_prices(
        [(gateway.model_name(r), gateway.endpoint(r)) for r in ROLES if gateway.has_model(r)]
        + [(spec, endpoint_for(spec, settings)) for spec in settings.council_models]
    )
    council = tape.council_models() if isinstance(tape, Player) else build_council_models(settings)
    if isinstance(tape, Recorder):
        gateway.wrap_models(tape.model)
        council = {spec: m and tape.model(m, spec) for spec, m in council.items()}
    if tape is not None:  # the budget's decisions kept, or answered from the recording
        tape.budget(guard, gateway)
    context = RunContext(
        settings=settings,
        gateway=gateway,
        search=search,
        fetcher=fetcher,
        bus=bus,
        council_models=council,
        search_errors=search_errors,
    )
    if tape is not None:
        from deepresearch.threads import StoredThreads  # the graph: loaded only to run

        context.clock = tape.clock()
        context.threads = tape.threads(StoredThreads(settings))
    return context


def _search_warnings(bus: EventBus, failures: list[str]) -> OnFailure:
    """A warning event when one of several search providers fails while the others answer:
    once per provider and problem, not once per query; each is also added to ``failures``
    (the run's ``search_errors``, which the report's limitations name)."""
    warned: set[tuple[str, str]] = set()

    def on_failure(error: ProviderError) -> None:
        if (error.provider, error.message) in warned:
            return
        warned.add((error.provider, error.message))
        failures.append(f"{error.provider}: {error.message}")
        bus.emit(
            SearchProviderFailedWarning(code="search_provider_failed", provider=error.provider),
            stage="research",
            message=f"Search provider {error.provider} failed, the others' results are used: "
            f"{error.message}",
        )

    return on_failure


def emit_queue_event(bus: EventBus, event: QueueEvent) -> None:
    """A call waiting for its model endpoint, as an event the live view shows."""
    if event.kind == "waiting":
        bus.emit(
            ModelCallWaiting(
                role=event.role,
                endpoint=event.endpoint,
                waiting=event.waiting,
                in_flight=event.in_flight,
                limit=event.limit,
            ),
            stage=event.stage,
            message=f"{event.role} call waiting for {event.endpoint} "
            f"({event.waiting} waiting, {event.in_flight} of {event.limit} in flight)",
        )
    elif event.kind == "started":
        bus.emit(
            ModelCallStarted(
                role=event.role,
                endpoint=event.endpoint,
                waiting=event.waiting,
                in_flight=event.in_flight,
                limit=event.limit,
                waited_s=event.waited_s,
            ),
            stage=event.stage,
            message=f"{event.role} call started at {event.endpoint} "
            f"after waiting {event.waited_s:.1f} s",
        )
    else:
        bus.emit(
            ModelWaitTimeoutWarning(
                code="model_wait_timeout",
                role=event.role,
                endpoint=event.endpoint,
                waiting=event.waiting,
                in_flight=event.in_flight,
                limit=event.limit,
                waited_s=event.waited_s,
            ),
            stage=event.stage,
            message=f"A {event.role} call gave up waiting for {event.endpoint} "
            f"after {event.waited_s:.0f} s; its step used the fallback",
        )


def _model_name(model: BaseChatModel | None) -> str:
    if model is None:
        return "none"
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    return str(name or model._llm_type)
