"""Budget decisions and cost arithmetic (``core/budget.py``), and the shipped price table."""

from __future__ import annotations

import pytest

from deepresearch.core.budget import (
    BUDGET_PREFIX,
    Limits,
    Price,
    Spend,
    budget_message,
    call_cost,
    cost_text,
    exhausted,
    parse_prices,
    price_for,
    refusal,
    time_left,
    unpriced_models,
    with_budget_note,
)
from deepresearch.llm.budget import package_prices, price_table
from deepresearch.models.usage import ModelCall, Usage

TABLE = {
    "openai:gpt-4.1": Price(2.0, 8.0),
    "openai:gpt-4.1-mini": Price(0.4, 1.6),
    "google_genai:gemini-2.5-flash": Price(0.3, 2.5),
}


def test_a_price_is_found_by_spec_by_name_and_by_longest_prefix() -> None:
    assert price_for("openai:gpt-4.1", TABLE) == Price(2.0, 8.0)
    # another provider prefix for the same model (google: and gemini: are aliases)
    assert price_for("google:gemini-2.5-flash", TABLE) == Price(0.3, 2.5)
    # a dated snapshot takes its family's price, the longest family that fits
    assert price_for("openai:gpt-4.1-mini-2025-04-14", TABLE) == Price(0.4, 1.6)
    assert price_for("openai:gpt-4.1-2025-04-14", TABLE) == Price(2.0, 8.0)
    # a prefix must end at a separator: gpt-4.10 is not gpt-4.1
    assert price_for("openai:gpt-4.10", TABLE) is None


def test_a_local_model_is_free_unless_priced_and_an_unknown_hosted_one_unpriced() -> None:
    assert price_for("ollama:llama3.2", TABLE, local=True) == Price(0.0, 0.0)
    assert price_for("ollama:llama3.2", {"ollama:llama3.2": Price(0.1, 0.1)}, local=True) == Price(
        0.1, 0.1
    )
    assert price_for("anthropic:claude-unknown", TABLE) is None
    assert unpriced_models(
        [("anthropic:claude-unknown", False), ("ollama:qwen3", True), ("openai:gpt-4.1", False)],
        TABLE,
    ) == ["anthropic:claude-unknown"]


def test_call_cost_is_dollars_per_million_tokens() -> None:
    assert call_cost(Price(2.0, 8.0), 1_000_000, 0) == pytest.approx(2.0)
    assert call_cost(Price(2.0, 8.0), 1_500, 500) == pytest.approx(0.003 + 0.004)


def test_a_runs_cost_is_the_same_whatever_order_its_calls_came_back_in() -> None:
    # a replay records the calls in another order than the run saw them finish: a float
    # sum of 0.1, 0.2 and 0.3 differs with the order, so costs are kept to the nano-dollar
    def total(order: list[int]) -> float:
        usage = Usage()
        for tokens in order:
            cost = call_cost(Price(1.0, 0.0), tokens, 0)
            usage.record(ModelCall(role="judge", stage="rank", model="m", cost_usd=cost))
        return usage.cost_usd

    assert total([100_000, 200_000, 300_000]) == total([300_000, 200_000, 100_000]) == 0.6
    merged, other = Usage(cost_usd=0.1), Usage(cost_usd=0.2)
    merged.merge(other)
    merged.merge(Usage(cost_usd=0.3))
    assert merged.cost_usd == 0.6


def test_a_call_starts_only_when_its_worst_case_fits() -> None:
    limits = Limits(max_tokens=10_000)
    # 8,000 spent + 1,000 in + 1,000 reserve = 10,000: fits exactly
    assert (
        refusal(limits, Spend(tokens=8_000), input_tokens=1_000, output_reserve=1_000, price=None)
        is None
    )
    assert (
        refusal(limits, Spend(tokens=8_001), input_tokens=1_000, output_reserve=1_000, price=None)
        == "tokens"
    )
    # the cost budget prices the same worst case
    cost = Limits(max_cost=0.01)
    price = Price(2.0, 8.0)  # 1,000 in + 1,000 out = $0.01
    assert refusal(cost, Spend(), input_tokens=1_000, output_reserve=1_000, price=price) is None
    assert (
        refusal(cost, Spend(cost=0.0001), input_tokens=1_000, output_reserve=1_000, price=price)
        == "cost"
    )
    # time: nothing starts once it has run out, whatever the tokens
    timed = Limits(max_tokens=10**9, max_time=5.0)
    assert (
        refusal(timed, Spend(elapsed_s=5.0), input_tokens=1, output_reserve=1, price=None) == "time"
    )
    assert (
        refusal(Limits(), Spend(tokens=10**12), input_tokens=10**6, output_reserve=1, price=None)
        is None
    )


def test_exhausted_and_time_left() -> None:
    assert exhausted(Limits(max_tokens=100), Spend(tokens=100)) == "tokens"
    assert exhausted(Limits(max_tokens=100), Spend(tokens=99)) is None
    assert exhausted(Limits(max_cost=1.0), Spend(cost=1.0)) == "cost"
    assert exhausted(Limits(max_time=2.0), Spend(elapsed_s=3.0)) == "time"
    assert time_left(Limits(max_time=2.0), 0.5) == 1.5
    assert time_left(Limits(max_time=2.0), 9.0) == 0.0
    assert time_left(Limits(), 9.0) is None


def test_the_message_names_the_budget_and_its_flag() -> None:
    message = budget_message("tokens", Limits(max_tokens=5_000), Spend(tokens=4_321))
    assert message.startswith(BUDGET_PREFIX)
    assert "5,000" in message and "4,321" in message and "--max-tokens" in message
    assert "--max-cost" in budget_message("cost", Limits(max_cost=0.5), Spend(cost=0.49))
    assert "--max-time" in budget_message("time", Limits(max_time=30), Spend(elapsed_s=30.2))


def test_prices_are_checked_with_a_clear_message() -> None:
    assert parse_prices({"x:y": {"input": 1, "output": 2.5}}) == {"x:y": Price(1.0, 2.5)}
    with pytest.raises(ValueError, match=r"'x:y' input must be a number of dollars ≥ 0"):
        parse_prices({"x:y": {"input": -1, "output": 2}})
    with pytest.raises(ValueError, match="needs exactly 'input' and 'output'"):
        parse_prices({"x:y": {"input": 1}})
    with pytest.raises(ValueError, match="must be a table"):
        parse_prices({"x:y": 3.0})


def test_cost_text() -> None:
    assert cost_text(0.01234, calls=3, unpriced_calls=0) == "cost $0.0123"
    assert cost_text(0.01, calls=3, unpriced_calls=1) == "cost $0.0100 + 1 unpriced calls"
    assert cost_text(0.0, calls=2, unpriced_calls=2) == "cost unknown (2 calls to unpriced models)"
    assert cost_text(0.0, calls=0, unpriced_calls=0) == "cost $0.0000"


def test_the_shipped_table_prices_common_models_and_the_user_overrides_it() -> None:
    shipped = package_prices()
    for spec in ("openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5", "google:gemini-2.5-flash"):
        assert price_for(spec, shipped) is not None, spec
    table = price_table(
        {
            "openai:gpt-4.1-mini": {"input": 9.0, "output": 9.0},
            "x:new": {"input": 1.0, "output": 1.0},
        }
    )
    assert table["openai:gpt-4.1-mini"] == Price(9.0, 9.0)
    assert table["x:new"] == Price(1.0, 1.0)
    assert table["openai:gpt-4.1"] == shipped["openai:gpt-4.1"]


def test_the_budget_note_comes_first_once() -> None:
    note = budget_message("time", Limits(max_time=1), Spend(elapsed_s=1.5))
    limitations = ["The evidence did not meet the quality gate: x.", f"{note}."]
    out = with_budget_note(limitations, ["model m timed out", note, note])
    assert out == [f"{note}.", "The evidence did not meet the quality gate: x."]
    assert with_budget_note(["a."], ["model m timed out"]) == ["a."]


def test_a_bad_price_in_the_settings_is_a_clear_config_error() -> None:
    from deepresearch.errors import ConfigError
    from deepresearch.settings import load_settings

    settings = load_settings(prices={"openai:gpt-x": {"input": 1, "output": 4}})
    assert settings.prices == {"openai:gpt-x": {"input": 1.0, "output": 4.0}}
    with pytest.raises(ConfigError, match=r"prices: 'openai:gpt-x' input must be a number"):
        load_settings(prices={"openai:gpt-x": {"input": -1, "output": 4}})
