"""Token usage counted per model call, per stage, per role and per run."""

from __future__ import annotations

from pydantic import BaseModel, Field

#: dollars are kept to the nano-dollar: a sum of such amounts is then the same whatever
#: order the calls came back in (a float sum is not: a replay must give the same report)
COST_DIGITS = 9


def add_cost(total: float, cost: float) -> float:
    return round(total + cost, COST_DIGITS)


class TokenCount(BaseModel):
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, input_tokens: int, output_tokens: int) -> None:
        self.calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens


class ModelCall(BaseModel):
    """One request to a chat model, as the gateway saw it."""

    role: str
    stage: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    ok: bool = True
    attempts: int = 1
    usage_source: str = Field(
        default="reported", description="'reported' by the provider or 'estimated'"
    )
    cost_usd: float | None = Field(
        default=0.0, description="US dollars at the price table's rate; None: unpriced model"
    )


class Usage(BaseModel):
    calls: int = 0
    failed_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    by_stage: dict[str, TokenCount] = Field(default_factory=dict)
    by_role: dict[str, TokenCount] = Field(default_factory=dict)
    #: US dollars of the priced calls (the price table: ``data/prices.toml``)
    cost_usd: float = 0.0
    #: calls to a model with no price (their cost is not in ``cost_usd``)
    unpriced_calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def record(self, call: ModelCall) -> None:
        self.calls += 1
        if not call.ok:
            self.failed_calls += 1
        self.input_tokens += call.input_tokens
        self.output_tokens += call.output_tokens
        if call.cost_usd is None:
            self.unpriced_calls += 1
        else:
            self.cost_usd = add_cost(self.cost_usd, call.cost_usd)
        self.by_stage.setdefault(call.stage, TokenCount()).add(
            call.input_tokens, call.output_tokens
        )
        self.by_role.setdefault(call.role, TokenCount()).add(call.input_tokens, call.output_tokens)
        # by name, not by which call came back first: the same calls, the same report
        self.by_stage = dict(sorted(self.by_stage.items()))
        self.by_role = dict(sorted(self.by_role.items()))

    def merge(self, other: Usage) -> None:
        self.calls += other.calls
        self.failed_calls += other.failed_calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cost_usd = add_cost(self.cost_usd, other.cost_usd)
        self.unpriced_calls += other.unpriced_calls
        for name, count in other.by_stage.items():
            mine = self.by_stage.setdefault(name, TokenCount())
            mine.calls += count.calls
            mine.input_tokens += count.input_tokens
            mine.output_tokens += count.output_tokens
        for name, count in other.by_role.items():
            mine = self.by_role.setdefault(name, TokenCount())
            mine.calls += count.calls
            mine.input_tokens += count.input_tokens
            mine.output_tokens += count.output_tokens
        self.by_stage = dict(sorted(self.by_stage.items()))
        self.by_role = dict(sorted(self.by_role.items()))
