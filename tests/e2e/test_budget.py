"""Hard budgets over a real run (issue 19): the offline web, a real fetcher and search,
the scripted model's words. A budgeted run never passes its token or cost budget, says
which budget ended it (the report's limitations, ``budget_exhausted``, ``run_completed``)
and still writes the best report it can; the cost comes from the price table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deepresearch.errors import ConfigError
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import ModelCalled, RunCompleted
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import offline_settings

#: the scripted model's price for these tests (the package's table has no "scripted")
PRICES = {"scripted": {"input": 3.0, "output": 15.0}}


async def _run(
    web: OfflineWeb, question: str, folder: Path, *, latency_s: float = 0.0, **extra: Any
) -> tuple[Report, list[RunEvent], ScriptedChatModel]:
    model = ScriptedChatModel(research_script(), latency_s=latency_s)
    settings = offline_settings(web, folder, **extra)
    events: list[RunEvent] = []
    report = await run_research(
        question, settings, models=dict.fromkeys(ROLES, model), sinks=[events.append]
    )
    assert report is not None
    return report, events, model


def _of(events: list[RunEvent], kind: str) -> list[RunEvent]:
    return [event for event in events if event.type == kind]


@pytest.fixture(scope="module")
def unbudgeted(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Report, list[RunEvent], ScriptedChatModel]:
    import asyncio

    return asyncio.run(
        _run(offline_web, hotpot_question, tmp_path_factory.mktemp("free"), prices=PRICES)
    )


def _ended_by(report: Report, events: list[RunEvent], budget: str, flag: str) -> None:
    """The run says, everywhere, that ``budget`` ended it."""
    exhausted = _of(events, "budget_exhausted")
    assert len(exhausted) == 1 and exhausted[0].data.budget == budget
    completed = _of(events, "run_completed")
    assert len(completed) == 1 and completed[0].data.budget == budget
    assert report.limitations[0].startswith("Budget reached: ")
    assert flag in report.limitations[0]


@pytest.mark.parametrize("share", [0.25, 0.5, 0.8])
async def test_a_token_budget_is_never_passed_and_names_itself(
    unbudgeted: tuple[Report, list[RunEvent], ScriptedChatModel],
    offline_web: OfflineWeb,
    hotpot_question: str,
    tmp_path: Path,
    share: float,
) -> None:
    free, _, free_model = unbudgeted
    limit = int(free.usage.total_tokens * share)
    report, events, model = await _run(
        offline_web, hotpot_question, tmp_path, max_tokens=limit, prices=PRICES
    )
    assert report.usage.total_tokens <= limit
    assert len(model.calls) < len(free_model.calls)  # calls were refused, not just counted
    _ended_by(report, events, "tokens", "--max-tokens")
    # every model_call event shows the spend against the budget, never over it
    for event in _of(events, "model_call"):
        assert isinstance(event.data, ModelCalled)
        spend = event.data.budget
        assert isinstance(spend, dict) and spend["max_tokens"] == limit
        assert isinstance(spend["tokens"], int) and spend["tokens"] <= limit
    # the best report from what was gathered: the writer was refused, so it is extractive
    # (or the honest abort when nothing was verified in time), never a crash
    assert report.kind in ("extractive", "synthesized", "abort")


async def test_a_budget_the_run_fits_in_changes_nothing(
    unbudgeted: tuple[Report, list[RunEvent], ScriptedChatModel],
    offline_web: OfflineWeb,
    hotpot_question: str,
    tmp_path: Path,
) -> None:
    free, _, free_model = unbudgeted
    report, events, model = await _run(
        offline_web,
        hotpot_question,
        tmp_path,
        max_tokens=free.usage.total_tokens * 3,
        max_cost=1.0,
        max_time=3_600,
        prices=PRICES,
    )
    assert report.kind == free.kind == "synthesized"
    assert report.usage.total_tokens == free.usage.total_tokens
    assert len(model.calls) == len(free_model.calls)
    assert not _of(events, "budget_exhausted")
    done = _of(events, "run_completed")[0].data
    assert isinstance(done, RunCompleted)
    assert done.budget is None
    spend = done.spend
    assert isinstance(spend, dict) and spend["tokens"] == free.usage.total_tokens
    assert not any(note.startswith("Budget reached") for note in report.limitations)


async def test_the_cost_comes_from_the_price_table_and_a_cost_budget_holds(
    unbudgeted: tuple[Report, list[RunEvent], ScriptedChatModel],
    offline_web: OfflineWeb,
    hotpot_question: str,
    tmp_path: Path,
) -> None:
    free, free_events, _ = unbudgeted
    usage = free.usage
    expected = (usage.input_tokens * 3.0 + usage.output_tokens * 15.0) / 1_000_000
    assert usage.cost_usd == pytest.approx(expected)
    assert usage.unpriced_calls == 0
    per_call = [event.data.cost_usd for event in _of(free_events, "model_call")]
    assert sum(float(c) for c in per_call if isinstance(c, float | int)) == pytest.approx(expected)
    assert _of(free_events, "run_completed")[0].data.cost_usd == pytest.approx(expected, abs=1e-6)

    limit = usage.cost_usd / 2
    report, events, _ = await _run(
        offline_web, hotpot_question, tmp_path, max_cost=limit, prices=PRICES
    )
    assert 0 < report.usage.cost_usd <= limit
    _ended_by(report, events, "cost", "--max-cost")


async def test_an_unpriced_hosted_model_cannot_run_under_a_cost_budget(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match="scripted has none in the price table") as caught:
        await _run(offline_web, hotpot_question, tmp_path, max_cost=0.5)
    assert "[prices." in (caught.value.hint or "")


async def test_a_time_budget_stops_the_run(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    # each model call takes 0.2 s and the run may take 0.5 s: it ends by time, whatever
    # the machine's speed (a slower machine only ends it sooner), with a report
    report, events, model = await _run(
        offline_web, hotpot_question, tmp_path, latency_s=0.2, max_time=0.5, prices=PRICES
    )
    _ended_by(report, events, "time", "--max-time")
    assert len(model.calls) < 21
    assert report.kind in ("extractive", "synthesized", "abort")
    # the calls cut at the deadline are the budget's doing, not the model's
    assert not any(note.startswith("Model problems") for note in report.limitations)
