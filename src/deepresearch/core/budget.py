"""Hard budgets: the price of a model call and whether a call may start (issue 19).

A run may be given at most so many tokens (``max_tokens``), dollars (``max_cost``) and
seconds of wall time (``max_time``). The gateway asks :func:`refusal` before every model
call; a call starts only when its worst case fits in what is left:

    worst case = tokens spent + the call's estimated input + its output reserve

where the input is estimated with the gateway's documented heuristic (``llm.tokens``: one
token per four characters) and the output reserve is ``budget_output_reserve`` tokens
(default 1,000: more than a structured reply or a report section takes). Replies are not
cut short, so a reply longer than its reserve can take a run past ``max_tokens`` by the
excess; the next call is then refused. The cost budget is the same rule in dollars, with
the call's model's price. The time budget refuses every call once ``max_time`` seconds
have passed since the run started (this process), and a call started before gets at most
the time left as its timeout.

Prices are US dollars per million tokens, input and output (``data/prices.toml``, merged
with the user's ``prices``). :func:`price_for` finds a model's price by its full spec, by
its model name without the provider, then by the longest listed prefix of its name (a
dated snapshot takes its family's price). A model on a server the user runs costs 0 unless
priced; an unpriced hosted model cannot run under ``max_cost`` (:func:`unpriced_models`,
checked before the run starts).

Pure: no clock, no I/O. The gateway passes the elapsed time in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from deepresearch.models.usage import COST_DIGITS

BudgetName = Literal["tokens", "cost", "time"]
#: what the run's limitations and the ``budget_exhausted`` event call each budget
BUDGET_FLAGS: dict[BudgetName, str] = {
    "tokens": "--max-tokens",
    "cost": "--max-cost",
    "time": "--max-time",
}
#: every user-facing message about a budget starts so (the report's limitations put it
#: on a line of its own, apart from the model problems)
BUDGET_PREFIX = "Budget reached: "
DEFAULT_OUTPUT_RESERVE = 1_000


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float


FREE = Price(0.0, 0.0)


@dataclass(frozen=True)
class Limits:
    """A run's budgets; None: no limit."""

    max_tokens: int | None = None
    max_cost: float | None = None
    max_time: float | None = None

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.max_tokens, self.max_cost, self.max_time))


@dataclass(frozen=True)
class Spend:
    """What a run has used so far."""

    tokens: int = 0
    cost: float = 0.0
    elapsed_s: float = 0.0


def parse_prices(data: Mapping[str, Any], *, where: str = "") -> dict[str, Price]:
    """A price table from ``{spec: {"input": usd, "output": usd}}`` (per million tokens),
    or ValueError naming the entry that is not one (after ``where``, when given)."""
    where = f"{where}: " if where else ""
    table: dict[str, Price] = {}
    for spec, entry in data.items():
        if not isinstance(entry, Mapping):
            raise ValueError(
                f"{where}{spec!r} must be a table like {{ input = 2.0, output = 8.0 }} "
                "(US dollars per million tokens)"
            )
        unknown = set(entry) - {"input", "output"}
        if unknown or not {"input", "output"} <= set(entry):
            raise ValueError(
                f"{where}{spec!r} needs exactly 'input' and 'output' "
                "(US dollars per million tokens)"
            )
        values = []
        for side in ("input", "output"):
            value = entry[side]
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(
                    f"{where}{spec!r} {side} must be a number of dollars ≥ 0, not {value!r}"
                )
            values.append(float(value))
        table[str(spec).strip()] = Price(values[0], values[1])
    return table


def _model_part(spec: str) -> str:
    return spec.split(":", 1)[1] if ":" in spec else spec


def price_for(spec: str, table: Mapping[str, Price], *, local: bool = False) -> Price | None:
    """The price of model ``spec`` (``provider:model`` or a bare model name): listed under
    its spec, else under its model name with any provider, else under the longest listed
    name it starts with (followed by ``-``, ``@``, ``:`` or ``.``). A model on a server the
    user runs (``local``) and not listed is free; a hosted one not listed: None."""
    if spec in table:
        return table[spec]
    name = _model_part(spec)
    by_name: dict[str, Price] = {}
    for key, price in table.items():
        by_name.setdefault(_model_part(key), price)
    if name in by_name:
        return by_name[name]
    best = ""
    for key in by_name:
        if name.startswith(key) and name[len(key)] in "-@:." and len(key) > len(best):
            best = key
    if best:
        return by_name[best]
    return FREE if local else None


def call_cost(price: Price, input_tokens: int, output_tokens: int) -> float:
    """The dollars a call costs at ``price``, to the nano-dollar (``COST_DIGITS``)."""
    return round(
        (input_tokens * price.input + output_tokens * price.output) / 1_000_000, COST_DIGITS
    )


def refusal(
    limits: Limits,
    spent: Spend,
    *,
    input_tokens: int,
    output_reserve: int,
    price: Price | None,
) -> BudgetName | None:
    """Which budget a call would pass if it started now (see the module's rule), or None
    when it fits. ``spent`` includes the worst case of the calls still running, so calls
    made at once cannot together pass a budget. ``price`` None: the model is unpriced
    (only possible without a cost budget, which refuses to start with one)."""
    if limits.max_time is not None and spent.elapsed_s >= limits.max_time:
        return "time"
    tokens, cost = worst_case(price, input_tokens=input_tokens, output_reserve=output_reserve)
    if limits.max_tokens is not None and spent.tokens + tokens > limits.max_tokens:
        return "tokens"
    if limits.max_cost is not None and spent.cost + cost > limits.max_cost:
        return "cost"
    return None


def worst_case(price: Price | None, *, input_tokens: int, output_reserve: int) -> tuple[int, float]:
    """The tokens and dollars a call is held to while it runs (see the module's rule)."""
    tokens = input_tokens + output_reserve
    return tokens, call_cost(price or FREE, input_tokens, output_reserve)


def exhausted(limits: Limits, spent: Spend) -> BudgetName | None:
    """A budget already used up (no call could fit), or None."""
    if limits.max_time is not None and spent.elapsed_s >= limits.max_time:
        return "time"
    if limits.max_tokens is not None and spent.tokens >= limits.max_tokens:
        return "tokens"
    if limits.max_cost is not None and spent.cost >= limits.max_cost:
        return "cost"
    return None


def time_left(limits: Limits, elapsed_s: float) -> float | None:
    """Seconds left of the time budget (≥ 0), or None without one."""
    if limits.max_time is None:
        return None
    return max(limits.max_time - elapsed_s, 0.0)


def spend_view(limits: Limits, spent: Spend) -> dict[str, float | int | None]:
    """Spend against budget, for events: each figure with its limit (None: no limit)."""
    return {
        "tokens": spent.tokens,
        "max_tokens": limits.max_tokens,
        "cost_usd": round(spent.cost, 6),
        "max_cost_usd": limits.max_cost,
        "elapsed_s": round(spent.elapsed_s, 3),
        "max_time_s": limits.max_time,
    }


def budget_message(name: BudgetName, limits: Limits, spent: Spend) -> str:
    """The limitation a run stopped by budget ``name`` reports (starts with
    ``BUDGET_PREFIX``)."""
    if name == "tokens":
        what = f"the token budget ({limits.max_tokens:,} tokens; {spent.tokens:,} used)"
    elif name == "cost":
        what = f"the cost budget (${limits.max_cost:.4f}; ${spent.cost:.4f} spent)"
    else:
        what = f"the time budget ({limits.max_time:g} s; {spent.elapsed_s:.1f} s elapsed)"
    return (
        f"{BUDGET_PREFIX}{what} ended the run ({BUDGET_FLAGS[name]}): no model call, "
        "research wave or page fetch was started after it, and the report was written "
        "from what had been gathered"
    )


def cost_text(cost_usd: float, *, calls: int, unpriced_calls: int) -> str:
    """The cost shown beside the tokens: ``$0.0123``; calls to unpriced models are said
    to be left out (``$0.0123 + 2 unpriced calls``; all unpriced: ``cost unknown``)."""
    if calls and unpriced_calls >= calls:
        return f"cost unknown ({unpriced_calls} calls to unpriced models)"
    extra = f" + {unpriced_calls} unpriced calls" if unpriced_calls else ""
    return f"cost ${cost_usd:.4f}{extra}"


def with_budget_note(limitations: Sequence[str], model_errors: Sequence[str]) -> list[str]:
    """A report's limitations with the budget that ended the run first (from the run's
    model messages, whichever stage it ended in), once."""
    notes = [
        f"{m.rstrip('.')}." for m in dict.fromkeys(model_errors) if m.startswith(BUDGET_PREFIX)
    ]
    return [*notes, *(note for note in limitations if not note.startswith(BUDGET_PREFIX))]


def unpriced_models(specs: Iterable[tuple[str, bool]], table: Mapping[str, Price]) -> list[str]:
    """The hosted models among ``(spec, local)`` that have no price (``max_cost`` cannot
    be kept with them)."""
    out = []
    for spec, local in specs:
        if price_for(spec, table, local=local) is None and spec not in out:
            out.append(spec)
    return out
