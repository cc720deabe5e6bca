"""The gateway keeps the run's budgets (``llm/budget.py``, ``core/budget.py``): calls made
at once cannot together pass a token budget, a refused call reaches no model, a call cut
at the time budget is neither retried nor reported as the model's failure, and each call
is priced."""

from __future__ import annotations

import asyncio

import pytest

from deepresearch.core.budget import Limits, Price
from deepresearch.llm.budget import BudgetGuard
from deepresearch.llm.gateway import Gateway
from deepresearch.llm.tokens import estimate_tokens
from deepresearch.testing.scripted import ScriptedChatModel

REPLY = "x" * 400  # 100 tokens


def gateway(model: ScriptedChatModel, guard: BudgetGuard, *, retries: int = 0) -> Gateway:
    return Gateway(
        {"summarizer": model},
        model_names={"summarizer": "scripted"},
        timeout_s=30.0,
        max_retries=retries,
        retry_base_s=5.0,
        budget=guard,
    )


async def test_calls_made_at_once_hold_their_worst_case() -> None:
    model = ScriptedChatModel(lambda _: REPLY, latency_s=0.05)
    prompt = "y" * 400  # 100 tokens in; reserve 200: each call may take 300
    guard = BudgetGuard(Limits(max_tokens=1_000), {}, output_reserve=200)
    gw = gateway(model, guard)
    answers = await asyncio.gather(
        *(gw.text("summarizer", system="", user=f"{prompt}{i}", stage="s") for i in range(8))
    )
    # three fit (900 ≤ 1,000); the fourth would make 1,200 while the three were running
    assert len(model.calls) == 3
    assert sum(a is not None for a in answers) == 3
    assert gw.usage.total_tokens <= 1_000
    assert guard.ended_by == "tokens"
    assert gw.errors and gw.errors[0].startswith("Budget reached: the token budget")


async def test_each_call_is_priced_and_an_unpriced_one_counted() -> None:
    model = ScriptedChatModel(lambda _: REPLY)
    guard = BudgetGuard(Limits(), {"scripted": Price(1.0, 10.0)})
    gw = gateway(model, guard)
    await gw.text("summarizer", system="", user="y" * 400, stage="s")
    inputs = gw.usage.input_tokens
    assert gw.usage.output_tokens == estimate_tokens(REPLY)
    assert gw.usage.cost_usd == pytest.approx((inputs * 1.0 + 100 * 10.0) / 1e6)
    unpriced = gateway(ScriptedChatModel(lambda _: REPLY), BudgetGuard(Limits(), {}))
    await unpriced.text("summarizer", system="", user="z", stage="s")
    assert unpriced.usage.cost_usd == 0 and unpriced.usage.unpriced_calls == 1


async def test_a_call_cut_at_the_time_budget_is_not_retried_nor_a_model_problem() -> None:
    model = ScriptedChatModel(lambda _: REPLY, latency_s=5.0)
    guard = BudgetGuard(Limits(max_time=0.2), {})
    gw = gateway(model, guard, retries=3)
    assert await gw.text("summarizer", system="", user="q", stage="s") is None
    assert len(model.calls) == 1  # no retry after the budget ran out
    assert guard.ended_by == "time"
    assert len(gw.errors) == 1 and "--max-time" in gw.errors[0]
    # and nothing starts after it
    assert await gw.text("summarizer", system="", user="another", stage="s") is None
    assert len(model.calls) == 1


def test_a_budget_found_used_up_between_calls_is_named_too() -> None:
    # a stage asks before new work (no call refused): the run's limitations still say it
    guard = BudgetGuard(Limits(max_time=1.0), {}, clock=iter([0.0, 2.0, 2.0, 2.0]).__next__)
    gw = gateway(ScriptedChatModel(lambda _: REPLY), guard)
    assert gw.budget.check(gw.usage, at="test") == "time"
    assert len(gw.errors) == 1 and "--max-time" in gw.errors[0]
