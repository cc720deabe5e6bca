"""The model gateway: the only code in deepresearch that calls a chat model.

Stages ask for ``text`` or a ``structured`` pydantic object for a role (planner,
researcher, summarizer, writer, judge). The gateway picks the role's model and owns
everything around the call: a slot at the model's endpoint (``llm.slots``: calls beyond
the endpoint's limit wait here, not in the server's queue), a per-call timeout that starts
once the call has its slot, retries with exponential backoff and jitter on rate limits /
5xx / connection failures / timeouts (honouring ``retry-after``), prompt-based JSON with
repair and one corrective retry, token usage per call, stage and role, a response cache,
and redaction of every error message it keeps.

A ``None`` answer always means "use your deterministic fallback": no model for that role,
the call failed after retries, or the output stayed invalid. The gateway never raises for
a failed call; it records what happened in ``usage``, ``errors`` and ``on_call`` so the
runner can tell the user.

The record of calls (usage, messages, breakers, queue events) is ``llm.calls``; one
attempt bounded by its timeout is ``llm.invoke``; the budgets are ``llm.budget``.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
import random
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TypeVar, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from deepresearch.core.budget import BudgetName
from deepresearch.errors import ConfigError
from deepresearch.injection.untrusted import fill_fence, neutralize_tokens, new_boundary
from deepresearch.llm.budget import BudgetGuard
from deepresearch.llm.cache import ResponseCache
from deepresearch.llm.calls import CallLog, QueueEvent
from deepresearch.llm.endpoints import HOSTED_CONCURRENCY, Endpoint, endpoint_for
from deepresearch.llm.failures import Failure, FailureKind, classify
from deepresearch.llm.invoke import CallTimedOut, call_key, invoke, prompt
from deepresearch.llm.providers import build_role_models, key_env_vars
from deepresearch.llm.single_flight import KeyedLocks
from deepresearch.llm.slots import Slots, slots_for
from deepresearch.llm.structured import (
    StructuredOutputError,
    parse_structured,
    schema_instructions,
    strip_reasoning,
)
from deepresearch.llm.tokens import estimate_messages, token_usage
from deepresearch.models.usage import ModelCall, Usage
from deepresearch.resilience import retry_delay
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES, Role

__all__ = ["Gateway", "QueueEvent"]

T = TypeVar("T", bound=BaseModel)

logger = logging.getLogger(__name__)

# How much of an invalid reply is sent back in the corrective retry.
_MAX_ECHO_CHARS = 4_000
_MAX_REASON_CHARS = 160
_CORRECTION = (
    "Your previous reply could not be used: {problem}.\n"
    "Reply again with only the corrected JSON object matching the schema in your "
    "instructions. No prose, no code fences."
)


class Gateway:
    """Role → model, with slots, timeouts, retries, structured output, usage, cache,
    redaction."""

    def __init__(
        self,
        models: Mapping[Role, BaseChatModel | None],
        *,
        model_names: Mapping[Role, str],
        timeout_s: float,
        max_retries: int,
        retry_base_s: float = 1.0,
        retry_max_s: float = 20.0,
        secrets: Sequence[str] = (),
        on_call: Callable[[ModelCall], None] | None = None,
        cache: ResponseCache | None = None,
        breaker_threshold: int = 3,
        endpoints: Mapping[Role, Endpoint | None] | None = None,
        wait_timeout_s: float = 900.0,
        on_queue: Callable[[QueueEvent], None] | None = None,
        budget: BudgetGuard | None = None,
    ) -> None:
        self._models = dict(models)
        self._names = dict(model_names)
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.retry_base_s = retry_base_s
        self.retry_max_s = retry_max_s
        # usage, messages, breakers and refused models (``llm.calls``), shared with twins
        self._log = CallLog(
            secrets=tuple(secrets),
            on_call=on_call,
            on_queue=on_queue,
            breaker_threshold=breaker_threshold,
        )
        self._cache = cache
        # the same question asked twice at once is asked of the model once (with a cache)
        self._asking = KeyedLocks()
        self.cache_hits = 0
        #: the run's random boundary, put in place of the fence placeholder of every data
        #: block and of the data rule just before a call (``injection.untrusted``); the runner
        #: keeps it in the run's state so a resumed run uses the same one
        self.boundary = new_boundary()
        # Where each role's model runs; a model handed in without one is its own endpoint.
        self._endpoints: dict[Role, Endpoint] = {
            role: endpoint for role, endpoint in (endpoints or {}).items() if endpoint
        }
        self.wait_timeout_s = wait_timeout_s
        self.budget = budget or BudgetGuard()
        #: told of each attempt cut at its timeout (model name, messages): a run's
        #: recording keeps it, so the replay's attempt is cut there too
        self.on_timeout: Callable[[str, Sequence[BaseMessage]], None] | None = None
        #: a model that refuses the key or is not found (after the preflight passed) stops
        #: the run (``on_model_unavailable = "fail"``) rather than falling back
        self.stop_when_unavailable = False

    @property
    def usage(self) -> Usage:
        """Token and call counts, per call, stage and role (shared with twins)."""
        return self._log.usage

    @property
    def errors(self) -> list[str]:
        """Sanitized, user-facing messages about failed calls (deduplicated)."""
        return self._log.errors

    @property
    def breaker_threshold(self) -> int:
        """Calls in a row that failed after retries before a model is not called again."""
        return self._log.breaker_threshold

    @classmethod
    def from_settings(
        cls,
        settings: ModelSettings,
        *,
        secrets: Collection[str] = (),
        budget: BudgetGuard | None = None,
        on_call: Callable[[ModelCall], None] | None = None,
        cache: ResponseCache | None = None,
        on_queue: Callable[[QueueEvent], None] | None = None,
    ) -> Gateway:
        """A gateway with every role's model built from ``settings`` (may raise ConfigError);
        ``secrets`` (every configured key) are redacted from what it keeps, with the keys
        the models' SDKs read from the environment."""
        models = build_role_models(settings)
        names = {role: settings.model_for(role) for role in ROLES}
        secrets = list(secrets)
        for spec in set(names.values()):
            secrets += [os.environ[var] for var in key_env_vars(spec) if os.environ.get(var)]
        return cls(
            models,
            model_names=names,
            timeout_s=settings.model_timeout_s,
            max_retries=settings.model_max_retries,
            secrets=secrets,
            on_call=on_call,
            cache=cache,
            endpoints={role: endpoint_for(names[role], settings) for role in ROLES},
            wait_timeout_s=settings.model_wait_timeout_s,
            on_queue=on_queue,
            budget=budget,
        )

    @property
    def budget(self) -> BudgetGuard:
        """The run's budgets (``core.budget``): no call starts that would pass one; the one
        that ends the run, whoever finds it used up, is named in ``errors``."""
        return self._budget

    @budget.setter
    def budget(self, guard: BudgetGuard) -> None:
        self._budget = guard
        guard.on_end = self.note

    @classmethod
    def disabled(cls) -> Gateway:
        """A gateway with no model for any role: every answer is None (fallbacks)."""
        return cls({}, model_names={}, timeout_s=60.0, max_retries=0)

    def with_role_model(self, role: Role, model: BaseChatModel | None, name: str) -> Gateway:
        """This gateway with ``role`` answered by another model (a council member, or the
        judge an evaluation names): the same usage, errors, cache, breakers and fence,
        so its calls are counted and guarded like every other."""
        twin = copy.copy(self)
        twin._models = {**self._models, role: model}
        twin._names = {**self._names, role: name}
        vars_ = key_env_vars(name) if ":" in name else ()
        twin._log = self._log.with_secrets(os.environ[var] for var in vars_ if os.environ.get(var))
        return twin

    def wrap_models(self, wrap: Callable[[BaseChatModel, str], BaseChatModel]) -> None:
        """Every role's model replaced by ``wrap(model, its name)`` (a run's recording,
        ``replay.ports``); names, endpoints and keys stay the model's own."""
        for role, model in self._models.items():
            if model is not None:
                self._models[role] = wrap(model, self.model_name(role))

    def has_model(self, role: Role) -> bool:
        """Whether ``role`` has a usable model (configured, and not refused for good)."""
        return self._model(role) is not None

    def model_name(self, role: Role) -> str:
        """The spec of ``role``'s model (``provider:model``), or ``none``."""
        if self._models.get(role) is None:
            return "none"
        return self._names.get(role) or type(self._models[role]).__name__

    def endpoint(self, role: Role) -> Endpoint | None:
        """Where ``role``'s model runs (None without a model)."""
        model = self._models.get(role)
        if model is None:
            return None
        found = self._endpoints.get(role)
        if found is None:
            found = Endpoint(
                key=f"model:{id(model)}",
                label=self.model_name(role),
                limit=HOSTED_CONCURRENCY,
            )
            self._endpoints[role] = found
        return found

    def disable(self, roles: Collection[Role], message: str) -> None:
        """Run ``roles`` without a model from now on (their fallbacks), saying why in
        ``errors`` (the report's limitations)."""
        for role in roles:
            self._models[role] = None
        self.note(message)

    def note(self, message: str) -> None:
        """Add a user-facing message about the models to ``errors`` (redacted, once)."""
        self._log.add_error(message)

    # the two questions a stage can ask ---------------------------------------------
    async def text(self, role: Role, *, system: str, user: str, stage: str) -> str | None:
        """A free-text answer (reasoning blocks removed), or None for the fallback."""
        model = self._model(role)
        if model is None:
            return None
        key = ResponseCache.key(self.model_name(role), system, user)
        async with self._asking.hold(key):
            cached = await self._cached(key)
            if cached is not None:
                self.cache_hits += 1
                return cached
            reply, _ = await self._call(role, model, self._fenced(system, user), stage)
            answer = strip_reasoning(reply) if reply is not None else ""
            if not answer:
                return None
            await self._store(key, answer, role)
            return answer

    async def structured(
        self,
        role: Role,
        schema: type[T],
        *,
        system: str,
        user: str,
        stage: str,
        timeout_s: float | None = None,
    ) -> T | None:
        """An instance of ``schema``, or None for the fallback. ``timeout_s`` overrides the
        gateway's per-call timeout for this step (seed 001's per-operation table).

        The schema is requested in the prompt (works with any provider and small local
        models), the reply is repaired and validated, and an invalid reply gets one
        corrective retry that shows the model its reply and what was wrong with it.
        """
        result, _ = await self.structured_with_reason(
            role, schema, system=system, user=user, stage=stage, timeout_s=timeout_s
        )
        return result

    async def structured_with_reason(
        self,
        role: Role,
        schema: type[T],
        *,
        system: str,
        user: str,
        stage: str,
        timeout_s: float | None = None,
    ) -> tuple[T | None, str]:
        """:meth:`structured`, with why there is no result: ``(result, "")`` or ``(None,
        reason)``, the reason short, redacted and fit to show a user (e.g. ``"the call
        timed out after 2 attempts"``, ``"its reply was not a valid Rating: ..."``)."""
        model = self._model(role)
        if model is None:
            return None, "no model"
        key = ResponseCache.key(self.model_name(role), system, user, schema.__name__)
        async with self._asking.hold(key):
            return await self._ask_structured(
                key, role, model, schema, system, user, stage, timeout_s
            )

    async def _ask_structured(
        self,
        key: str,
        role: Role,
        model: BaseChatModel,
        schema: type[T],
        system: str,
        user: str,
        stage: str,
        timeout_s: float | None,
    ) -> tuple[T | None, str]:
        hit = await self._cached_object(key, schema)
        if hit is not None:
            return hit, ""
        messages = self._fenced(f"{system}\n\n{schema_instructions(schema)}".strip(), user)
        reply, why = await self._call(role, model, messages, stage, timeout_s=timeout_s)
        if reply is None:
            return None, why
        try:
            result = parse_structured(reply, schema)
        except StructuredOutputError as first:
            messages += [
                AIMessage(content=reply[:_MAX_ECHO_CHARS]),
                HumanMessage(content=_CORRECTION.format(problem=first.problem)),
            ]
            reply, why = await self._call(role, model, messages, stage, timeout_s=timeout_s)
            if reply is None:
                return None, why
            try:
                result = parse_structured(reply, schema)
            except StructuredOutputError as second:
                problem = self._log.redact(second.problem)
                logger.info(
                    "%s gave no valid %s for %s after a corrective retry: %s",
                    self.model_name(role),
                    schema.__name__,
                    stage,
                    problem,
                )
                return None, _clip(f"its reply was not a valid {schema.__name__}: {problem}")
        await self._store(key, result.model_dump_json(), role)
        return result, ""

    def _fenced(self, system: str, user: str) -> list[BaseMessage]:
        """The messages a model gets: the run's boundary in place of the fence placeholder
        (the cache key is computed before, so a replayed run still finds its replies), and
        no chat-template token left in the user prompt."""
        return prompt(
            fill_fence(system, self.boundary), fill_fence(neutralize_tokens(user), self.boundary)
        )

    # one counted call: a slot at the endpoint, then timeout and retries ------------
    async def _call(
        self,
        role: Role,
        model: BaseChatModel,
        messages: list[BaseMessage],
        stage: str,
        *,
        timeout_s: float | None = None,
    ) -> tuple[str | None, str]:
        """The reply, or None and why not. Each attempt first takes a slot at the model's
        endpoint; its timeout starts only then, so waiting behind other calls never eats
        into it. The slot is held for the attempt alone, not for the backoff after it."""
        name = self.model_name(role)
        endpoint = self.endpoint(role)
        assert endpoint is not None  # a role with a model has an endpoint
        began = time.monotonic()
        started = 0.0  # latency counts from the first attempt's start, not the wait before
        attempts = 0
        while True:
            slots = slots_for(endpoint)
            try:
                await self._take_slot(slots, endpoint, role, stage)
            except TimeoutError:
                return None, self._gave_up(role, stage, name, endpoint, began, attempts)
            # a budget's worst case is held while the call runs (``llm.budget``); a run's
            # recording keeps the decision under the call's key, and a replay reads it there
            inputs = estimate_messages(messages)
            call = call_key(name, messages) if self.budget.keyed else ""
            over = self.budget.admit(
                self.usage, model=name, endpoint=endpoint, input_tokens=inputs, call=call
            )
            if over is not None:
                slots.release()
                return None, self._over_budget(over)
            try:
                attempts += 1
                if attempts == 1:
                    started = time.monotonic()
                try:
                    timeout = self.budget.timeout(timeout_s or self.timeout_s)
                    message = await invoke(model, messages, timeout)
                except Exception as exc:
                    failure = self._failed_attempt(exc, name, role, stage, attempts, messages)
                    # once a budget is used up nothing is retried; a call cut at the
                    # time budget is not the model's failure
                    over = self.budget.check(self.usage, at=f"retry {call}")
                    retry = self._retry(failure, endpoint) and attempts <= self.max_retries
                    slots.release()
                    if retry and over is None:
                        await asyncio.sleep(self.budget.timeout(self._backoff(attempts, failure)))
                        continue
                    return None, self._gave_up_after(
                        failure, type(exc).__name__, over, role, stage, name, started, attempts
                    )
                except BaseException:  # cancelled: give the slot back before leaving
                    slots.release()
                    raise
                slots.release()
                return self._succeeded(message, messages, role, stage, name, started, attempts), ""
            finally:
                self.budget.release(model=name, endpoint=endpoint, input_tokens=inputs)

    def _failed_attempt(
        self,
        exc: Exception,
        name: str,
        role: Role,
        stage: str,
        attempts: int,
        messages: Sequence[BaseMessage],
    ) -> Failure:
        """What an attempt's exception was (a cut attempt told to ``on_timeout``), logged."""
        if isinstance(exc, CallTimedOut) and self.on_timeout is not None:
            self.on_timeout(name, messages)
        failure = classify(exc)
        logger.debug(
            "model call %s (%s/%s) attempt %d: %s",
            name,
            role,
            stage,
            attempts,
            self._log.redact(f"{type(exc).__name__}: {exc}")[:500],
        )
        return failure

    def _gave_up_after(
        self,
        failure: Failure,
        error: str,
        over: BudgetName | None,
        role: Role,
        stage: str,
        name: str,
        started: float,
        attempts: int,
    ) -> str:
        """A call given up after its last attempt: counted, and why (for ``errors``)."""
        self._record_failed(role, stage, name, started, attempts)
        if over == "time" and failure.kind is FailureKind.TIMEOUT:
            return self._over_budget(over)
        if self.stop_when_unavailable and failure.kind.disables_model:
            raise _unavailable(name, failure)
        self._log.failed(name, failure, attempts, error)
        what = failure.describe() if failure.kind is not FailureKind.OTHER else "failed"
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        return f"the call {what}{tries}"

    def _succeeded(
        self,
        message: AIMessage,
        messages: Sequence[BaseMessage],
        role: Role,
        stage: str,
        name: str,
        started: float,
        attempts: int,
    ) -> str:
        """A call answered: counted with its token usage; its reply's text."""
        self._log.succeeded(name)
        reply = message.text
        input_tokens, output_tokens, source = token_usage(message, messages, reply)
        self._record(
            ModelCall(
                role=role,
                stage=stage,
                model=name,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                latency_s=time.monotonic() - started,
                ok=True,
                attempts=attempts,
                usage_source=source,
            )
        )
        return reply

    async def _take_slot(self, slots: Slots, endpoint: Endpoint, role: Role, stage: str) -> None:
        """A slot at ``endpoint``, reporting the wait when there is one."""
        if slots.free:
            await slots.acquire(self.wait_timeout_s)  # returns at once
            return
        self._log.queue_event("waiting", slots, endpoint, role, stage, waiting=slots.waiting + 1)
        try:
            waited = await slots.acquire(self.wait_timeout_s)
        except TimeoutError:
            self._log.queue_event(
                "gave_up", slots, endpoint, role, stage, waited_s=self.wait_timeout_s
            )
            raise
        self._log.queue_event("started", slots, endpoint, role, stage, waited_s=waited)

    def _record_failed(
        self, role: Role, stage: str, name: str, started: float, attempts: int
    ) -> None:
        """A call that got no reply: counted, its tokens estimated."""
        self._record(
            ModelCall(
                role=role,
                stage=stage,
                model=name,
                latency_s=time.monotonic() - started,
                ok=False,
                attempts=attempts,
                usage_source="estimated",
            )
        )

    def _gave_up(
        self, role: Role, stage: str, name: str, endpoint: Endpoint, started: float, attempts: int
    ) -> str:
        """Record a call that waited ``wait_timeout_s`` for a slot; the reason for it."""
        self._record_failed(role, stage, name, started, attempts)
        waited = f"{self.wait_timeout_s:.0f} s"
        self._log.add_error(
            f"a {role} call to model {name} waited {waited} for {endpoint.label} to be free; "
            "a deterministic fallback was used for that step (raise model_wait_timeout_s, "
            "or model_concurrency if the server takes more calls at once)"
        )
        return f"the call waited {waited} for {endpoint.label} to be free"

    @staticmethod
    def _retry(failure: Failure, endpoint: Endpoint) -> bool:
        """Retry rate limits, 5xx, connection failures and timeouts; but not a timeout at
        a server the user runs: a model that was too slow once is as slow again, and the
        retry would hold the server (and every call waiting for it) as long again."""
        if failure.kind is FailureKind.TIMEOUT and endpoint.local:
            return False
        return failure.retryable

    def _backoff(self, attempt: int, failure: Failure) -> float:
        """Seconds to wait before retry number ``attempt``: retry-after, else exp + jitter."""
        return retry_delay(
            attempt - 1,
            failure.retry_after_s,
            base_s=self.retry_base_s,
            cap_s=self.retry_max_s,
            max_retry_after_s=self.retry_max_s,
            jitter=random.random(),
        )

    def _over_budget(self, name: BudgetName) -> str:
        """A call refused by a budget: the run's limitation says which, once."""
        self._log.add_error(self.budget.message)
        return f"the run's {name} budget is used up"

    def _record(self, call: ModelCall) -> None:
        endpoint = self._endpoints.get(cast(Role, call.role))
        cost = self.budget.cost(call.model, endpoint, call.input_tokens, call.output_tokens)
        self._log.record(call.model_copy(update={"cost_usd": cost}))

    # helpers ------------------------------------------------------------------------
    def _model(self, role: Role) -> BaseChatModel | None:
        model = self._models.get(role)
        if model is None or self.model_name(role) in self._log.refused:
            return None
        return model

    async def _cached(self, key: str) -> str | None:
        if self._cache is None:
            return None
        return await self._cache.get(key)

    async def _cached_object(self, key: str, schema: type[T]) -> T | None:
        cached = await self._cached(key)
        if cached is None:
            return None
        try:
            result = schema.model_validate_json(cached)
        except ValidationError:
            return None  # the schema changed since: ask again
        self.cache_hits += 1
        return result

    async def _store(self, key: str, reply: str, role: Role) -> None:
        if self._cache is not None:
            await self._cache.put(key, reply, model=self.model_name(role))


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_REASON_CHARS else text[: _MAX_REASON_CHARS - 3] + "..."


def _unavailable(name: str, failure: Failure) -> ConfigError:
    """The error that stops a run whose model refused its key or was not found."""
    fix = "the model's API key" if failure.kind is FailureKind.AUTH else "the model name"
    return ConfigError(
        f"model {name} {failure.describe()}",
        hint=f"check {fix} and --model-base-url; or run without a model (--model none), or "
        'let runs fall back to an extractive report (on_model_unavailable = "extractive")',
    )
