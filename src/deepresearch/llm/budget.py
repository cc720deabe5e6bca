"""The run's budgets as the gateway keeps them: the clock, the price table, and which
budget ended the run. The decisions and the arithmetic are ``core.budget``'s; this holds
the state they need (issue 19).

The price table is the package's ``data/prices.toml`` with the user's ``prices`` setting
on top. A model counts as running on a server the user runs (free unless priced) when its
endpoint's address is this machine or a private network address (``localhost``,
``127.0.0.1``, ``10.x``, ``192.168.x``, ``.local``...): Ollama, llama.cpp, vLLM or LM
Studio. Any other address, even one given with ``--model-base-url``, is a hosted service.

Which calls a budget lets start depends on how fast earlier calls came back, so a run's
recording keeps every decision (``record``: where it was made and its :class:`Verdict`),
and a replay's guard answers from those (``recorded``) instead of the clock and the spend:
the same calls start, the same are refused, the same budget ends the run at the same point
with the same message. A decision is named by where it was made, never by when: a call by
its key (``llm.invoke.call_key``), a stage's question by the point it names (``check``).
"""

from __future__ import annotations

import ipaddress
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from urllib.parse import urlsplit

from deepresearch.core.budget import (
    BUDGET_PREFIX,
    DEFAULT_OUTPUT_RESERVE,
    BudgetName,
    Limits,
    Price,
    Spend,
    budget_message,
    call_cost,
    exhausted,
    parse_prices,
    price_for,
    refusal,
    spend_view,
    time_left,
    unpriced_models,
    worst_case,
)
from deepresearch.errors import ConfigError
from deepresearch.llm.endpoints import Endpoint
from deepresearch.models.usage import Usage
from deepresearch.settings_groups import BudgetSettings

#: called once, when a budget ends the run: (which budget, the message, spend vs limits)
OnExhausted = Callable[[BudgetName, str, dict[str, float | int | None]], None]


@dataclass(frozen=True)
class Verdict:
    """One budget decision: the budget a call or a stage would pass (None: it may go on)
    and, when one would, what ended the run (its message, the spend against the budgets
    then)."""

    over: BudgetName | None = None
    message: str = ""
    spend: Mapping[str, float | int | None] = field(default_factory=dict)


@cache
def package_prices() -> dict[str, Price]:
    """The price table shipped with deepresearch (``data/prices.toml``)."""
    text = resources.files("deepresearch.data").joinpath("prices.toml").read_text("utf-8")
    return parse_prices(tomllib.loads(text).get("prices", {}), where="prices.toml")


def price_table(overrides: Mapping[str, Mapping[str, float]] | None = None) -> dict[str, Price]:
    """The package's prices with ``overrides`` (the ``prices`` setting) on top."""
    table = dict(package_prices())
    if overrides:
        table.update(parse_prices(overrides))
    return table


def runs_here(endpoint: Endpoint | None) -> bool:
    """Whether ``endpoint`` is a server on this machine or a private network."""
    if endpoint is None or endpoint.url is None:
        return False
    try:
        host = urlsplit(endpoint.url if "//" in endpoint.url else f"//{endpoint.url}").hostname
    except ValueError:
        return False
    if not host:
        return False
    if host == "localhost" or host.endswith((".localhost", ".local", ".lan", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


class BudgetGuard:
    """The budgets of one run, shared by the gateway and its council twins."""

    def __init__(
        self,
        limits: Limits | None = None,
        prices: Mapping[str, Price] | None = None,
        *,
        output_reserve: int = DEFAULT_OUTPUT_RESERVE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits or Limits()
        self.prices = dict(package_prices() if prices is None else prices)
        self.output_reserve = output_reserve
        self._clock = clock
        self.started = clock()
        self._held_tokens = 0  # the worst case of the calls running now
        self._held_cost = 0.0
        self.ended_by: BudgetName | None = None
        self.message = ""
        self.on_exhausted: OnExhausted | None = None
        #: the gateway's: the message goes into its errors (the report's limitations)
        self.on_end: Callable[[str], None] | None = None
        #: the spend against the budgets when one ended the run
        self.ending_spend: dict[str, float | int | None] = {}
        #: a recorded run's: each decision, with where it was made, goes to its recording
        self.record: Callable[[str, Verdict], None] | None = None
        #: a replay's: the recorded decision made at a point (None: there is none, a miss
        #: the replay reports); the clock and spend then decide nothing
        self.recorded: Callable[[str], Verdict | None] | None = None

    @classmethod
    def from_settings(cls, settings: BudgetSettings) -> BudgetGuard:
        return cls(
            Limits(settings.max_tokens, settings.max_cost, settings.max_time),
            price_table(settings.prices),
            output_reserve=settings.budget_output_reserve,
        )

    def price(self, model: str, endpoint: Endpoint | None) -> Price | None:
        """``model``'s price (free on a server the user runs, unless priced)."""
        return price_for(model, self.prices, local=runs_here(endpoint))

    def cost(
        self, model: str, endpoint: Endpoint | None, inputs: int, outputs: int
    ) -> float | None:
        """The dollars a call cost, or None for an unpriced model."""
        price = self.price(model, endpoint)
        return None if price is None else call_cost(price, inputs, outputs)

    def spent(self, usage: Usage) -> Spend:
        return Spend(usage.total_tokens, usage.cost_usd, self._clock() - self.started)

    @property
    def keyed(self) -> bool:
        """Whether decisions are recorded or replayed (a budget, and a recording or a
        replay): only then does a call need its key."""
        return self.limits.any and (self.record is not None or self.recorded is not None)

    def admit(
        self,
        usage: Usage,
        *,
        model: str,
        endpoint: Endpoint | None,
        input_tokens: int,
        call: str,
    ) -> BudgetName | None:
        """None when a call of ``input_tokens`` to ``model`` may start: its worst case is
        then held until :meth:`release`. Else the budget it would pass (which ends the
        run: every later call is refused too). ``call`` names the call (its key) for the
        recording, or for the replay that answers from it."""
        at = f"call {call}"
        if self.recorded is not None:
            return self._replayed(at)
        over = self._admit(usage, model=model, endpoint=endpoint, input_tokens=input_tokens)
        self._decided(at, over)
        return over

    def _admit(
        self, usage: Usage, *, model: str, endpoint: Endpoint | None, input_tokens: int
    ) -> BudgetName | None:
        if self.ended_by is not None:
            return self.ended_by
        price = self.price(model, endpoint)
        now = self.spent(usage)
        running = Spend(now.tokens + self._held_tokens, now.cost + self._held_cost, now.elapsed_s)
        name = refusal(
            self.limits,
            running,
            input_tokens=input_tokens,
            output_reserve=self.output_reserve,
            price=price,
        )
        if name is not None:
            self._end(name, usage)
            return name
        tokens, cost = worst_case(
            price, input_tokens=input_tokens, output_reserve=self.output_reserve
        )
        self._held_tokens += tokens
        self._held_cost += cost
        return None

    def release(self, *, model: str, endpoint: Endpoint | None, input_tokens: int) -> None:
        """A call admitted by :meth:`admit` ended (its usage is recorded)."""
        tokens, cost = worst_case(
            self.price(model, endpoint),
            input_tokens=input_tokens,
            output_reserve=self.output_reserve,
        )
        self._held_tokens = max(self._held_tokens - tokens, 0)
        self._held_cost = max(self._held_cost - cost, 0.0)

    def check(self, usage: Usage, *, at: str) -> BudgetName | None:
        """The budget that ended the run, or one used up by now (time passes between
        calls): stages ask before starting new work. ``at`` names the point that asks
        (``"reflect wave 2"``, ``"fetch URL"``), the same in every run of the same
        work, so a replay finds the recorded answer."""
        if self.recorded is not None:
            return self._replayed(at)
        if self.ended_by is None:
            name = exhausted(self.limits, self.spent(usage))
            if name is not None:
                self._end(name, usage)
        self._decided(at, self.ended_by)
        return self.ended_by

    def timeout(self, timeout_s: float) -> float:
        """A call's timeout: at most the time left of the time budget. In a replay the
        given one: its calls answer from the recording, which says which were cut."""
        if self.recorded is not None:
            return timeout_s
        left = time_left(self.limits, self._clock() - self.started)
        return timeout_s if left is None else max(min(timeout_s, left), 0.001)

    def view(self, usage: Usage) -> dict[str, float | int | None]:
        """Spend against budget (for events)."""
        return spend_view(self.limits, self.spent(usage))

    def require_prices(self, models: Sequence[tuple[str, Endpoint | None]]) -> None:
        """ConfigError when ``max_cost`` is set and a hosted model has no price."""
        if self.limits.max_cost is None:
            return
        missing = unpriced_models(
            [(model, runs_here(endpoint)) for model, endpoint in models], self.prices
        )
        if missing:
            first = missing[0]
            raise ConfigError(
                f"--max-cost needs a price for every model, and {', '.join(missing)} "
                "has none in the price table",
                hint=f'add it to deepresearch.toml: [prices."{first}"] input = 1.0, '
                "output = 2.0 (US dollars per million tokens), or set DEEPRESEARCH_PRICES; "
                "see docs/configuration.md",
            )

    def _end(self, name: BudgetName, usage: Usage) -> None:
        spent = self.spent(usage)
        self._ended(name, budget_message(name, self.limits, spent), spend_view(self.limits, spent))

    def _ended(self, name: BudgetName, message: str, spend: dict[str, float | int | None]) -> None:
        self.ended_by = name
        self.message = message
        self.ending_spend = spend
        if self.on_end is not None:
            self.on_end(self.message)
        if self.on_exhausted is not None:
            self.on_exhausted(name, self.message, spend)

    def _decided(self, at: str, over: BudgetName | None) -> None:
        """Keep the decision made at ``at`` on the run's recording."""
        if self.record is None or not self.limits.any:
            return
        self.record(at, Verdict(over, self.message, self.ending_spend) if over else Verdict())

    def _replayed(self, at: str) -> BudgetName | None:
        """The recorded decision at ``at``; the first refusal ends the run as the recorded
        run's did (its message, its spend). A point the recording has no decision for
        is a miss the replay fails with; meanwhile no call starts."""
        assert self.recorded is not None
        verdict = self.recorded(at)
        if verdict is None:
            missing = f"{BUDGET_PREFIX}the recording holds no budget decision for {at[:80]}"
            verdict = Verdict(self.ended_by or _first_budget(self.limits), self.message or missing)
        if verdict.over is not None and self.ended_by is None:
            self._ended(verdict.over, verdict.message, dict(verdict.spend))
        return verdict.over


def _first_budget(limits: Limits) -> BudgetName:
    """A budget the run has (any, when it has none: only a replay's miss asks)."""
    if limits.max_tokens is not None:
        return "tokens"
    return "cost" if limits.max_cost is not None else "time"
