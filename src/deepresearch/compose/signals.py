"""What the ports report during a run, as the run's events: a search provider failing
while others answer, a model call made, a budget used up, a call waiting for its model's
endpoint. Built by the composition root and handed to the ports as callbacks."""

from __future__ import annotations

from deepresearch.errors import ProviderError
from deepresearch.events import EventBus
from deepresearch.llm.budget import BudgetGuard
from deepresearch.llm.gateway import Gateway, QueueEvent
from deepresearch.models import ModelCall
from deepresearch.models.event_payloads import (
    BudgetExhausted,
    ModelCalled,
    ModelCallStarted,
    ModelCallWaiting,
    ModelWaitTimeoutWarning,
    SearchProviderFailedWarning,
)
from deepresearch.search.fanout import OnFailure


def search_warnings(bus: EventBus, failures: list[str]) -> OnFailure:
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


class ModelCalls:
    """A ``model_called`` event per call, with the spend against the budgets so far (the
    gateway is known once built: it is told of its own calls through this)."""

    def __init__(self, bus: EventBus, guard: BudgetGuard) -> None:
        self.bus = bus
        self.guard = guard
        self.gateway: Gateway | None = None

    def __call__(self, call: ModelCall) -> None:
        assert self.gateway is not None  # no call is made before the gateway exists
        self.bus.emit(
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
                budget=self.guard.view(self.gateway.usage),  # spend against the budgets
            ),
            stage=call.stage,
            message=f"{call.role} model call ({call.model})",
        )


def announce_exhausted(bus: EventBus, guard: BudgetGuard) -> None:
    """A ``budget_exhausted`` event when one of ``guard``'s budgets ends the run."""

    def on_exhausted(name: str, message: str, spend: dict[str, float | int | None]) -> None:
        bus.emit(BudgetExhausted(budget=name, spend=dict(spend)), message=message)

    guard.on_exhausted = on_exhausted


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
