"""The gateway's record of its calls (``llm.gateway``): every call's usage handed to the
``on_call`` hook, the user-facing messages about failed calls (redacted, each once), the
models not to call again (a bad key, an unknown model, a breaker that opened), and the
queue events of calls waiting for a slot at their endpoint (the ``on_queue`` hook).

A gateway and its twins (``Gateway.with_role_model``) share one record: the same usage,
messages, breakers and refused models; a twin only redacts more keys."""

from __future__ import annotations

import copy
import logging
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from deepresearch.llm.endpoints import Endpoint
from deepresearch.llm.failures import Failure, FailureKind
from deepresearch.llm.redact import redact
from deepresearch.llm.slots import Slots
from deepresearch.models.usage import ModelCall, Usage
from deepresearch.resilience import BreakerRegistry
from deepresearch.settings_values import Role

logger = logging.getLogger("deepresearch.llm.gateway")  # the messages' logger stays the gateway's


@dataclass(frozen=True)
class QueueEvent:
    """A call waiting for a slot at its endpoint (``waiting``), getting one after a wait
    (``started``), or giving up after ``wait_timeout_s`` (``gave_up``). ``endpoint`` is
    the endpoint's label (``host:port`` or a provider name): never a key or a full URL."""

    kind: Literal["waiting", "started", "gave_up"]
    role: Role
    stage: str
    endpoint: str
    waiting: int
    in_flight: int
    limit: int
    waited_s: float = 0.0


@dataclass
class CallLog:
    """Usage, messages, breakers and refused models of one gateway and its twins."""

    #: every key that must never appear in a message
    secrets: tuple[str, ...] = ()
    on_call: Callable[[ModelCall], None] | None = None
    on_queue: Callable[[QueueEvent], None] | None = None
    #: calls in a row that failed even after retries (timeouts, 5xx, rate limits,
    #: unreachable) before the model is not called again this run: the shared breaker,
    #: with no cool-down
    breaker_threshold: int = 3
    usage: Usage = field(default_factory=Usage)
    #: sanitized, user-facing messages about failed calls (deduplicated)
    errors: list[str] = field(default_factory=list)
    #: models not to call again (bad key, unknown, broken)
    refused: set[str] = field(default_factory=set)
    breakers: BreakerRegistry = field(init=False)

    def __post_init__(self) -> None:
        self.secrets = tuple(secret for secret in self.secrets if secret)
        self.breakers = BreakerRegistry(
            failure_threshold=self.breaker_threshold, reset_after_s=math.inf
        )

    def with_secrets(self, more: Iterable[str]) -> CallLog:
        """The same record (shared usage, messages, breakers), redacting ``more`` keys too."""
        twin = copy.copy(self)
        twin.secrets = tuple(dict.fromkeys([*self.secrets, *more]))
        return twin

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def record(self, call: ModelCall) -> None:
        """A finished call (its cost already priced): counted, then told to ``on_call``."""
        self.usage.record(call)
        if self.on_call is not None:
            self.on_call(call)

    def add_error(self, message: str) -> None:
        """A user-facing message about the models, redacted, kept once (logged again at
        DEBUG when it repeats)."""
        message = self.redact(message)
        if message in self.errors:
            logger.debug(message)
            return
        logger.warning(message)
        self.errors.append(message)

    def succeeded(self, name: str) -> None:
        self.breakers.get(name).record_success()

    def failed(self, name: str, failure: Failure, attempts: int, exc_type: str) -> None:
        """A call that failed for good: the message for the report's limitations; a model
        refused for good after an auth or not-found failure, or when its breaker opens."""
        if failure.kind.disables_model:
            self.refused.add(name)
        if failure.kind is FailureKind.AUTH:
            self.add_error(
                f"model {name} {failure.describe()}; the run used deterministic fallbacks"
            )
        elif failure.kind is FailureKind.NOT_FOUND:
            self.add_error(
                f"model {name} {failure.describe()}; "
                "the run used deterministic fallbacks (check the model name)"
            )
        else:
            what = failure.describe()
            if failure.kind is FailureKind.OTHER:
                what = f"failed ({exc_type})"
            tries = f"after {attempts} attempts" if attempts > 1 else "on the first attempt"
            self.add_error(
                f"model {name} {what} {tries}; a deterministic fallback was used for that step"
            )
        if failure.retryable:
            breaker = self.breakers.get(name)
            breaker.record_failure()
            if not breaker.allow() and name not in self.refused:
                self.refused.add(name)
                self.add_error(
                    f"model {name} failed {self.breaker_threshold} calls in a row; "
                    "the rest of the run used deterministic fallbacks"
                )

    def queue_event(
        self,
        kind: Literal["waiting", "started", "gave_up"],
        slots: Slots,
        endpoint: Endpoint,
        role: Role,
        stage: str,
        *,
        waiting: int | None = None,
        waited_s: float = 0.0,
    ) -> None:
        """Tell ``on_queue`` about a call waiting for ``endpoint``'s slots."""
        if self.on_queue is None:
            return
        self.on_queue(
            QueueEvent(
                kind=kind,
                role=role,
                stage=stage,
                endpoint=endpoint.label,
                waiting=slots.waiting if waiting is None else waiting,
                in_flight=slots.in_flight,
                limit=slots.limit,
                waited_s=round(waited_s, 3),
            )
        )
