"""Replay of runs made under a budget (issue 19): which model calls a budget lets start
depends on how fast earlier calls came back, so the recording keeps every decision of the
run's budget guard, and the replay's guard follows them instead of the clock and spend.
Each run is made for real over the offline web (the scripted model's words, with a latency
that grows with the reply so calls finish out of order), then replayed from its recording
with every network socket refused: the same markdown and JSON byte for byte, the same
budget ending the run with the same message, no model call, search or fetch. An old
recording without the decisions is refused, saying why."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_socket

from deepresearch.compose.replay import export_recording, replay_run
from deepresearch.errors import RunError
from deepresearch.export.report_render import to_json, to_markdown
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import BudgetExhausted
from deepresearch.models.pause import InputRequest
from deepresearch.replay.tape import recording_folder
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import offline_settings

PRICES = {"scripted": {"input": 3.0, "output": 15.0}}


@dataclass(frozen=True)
class Budgeted:
    name: str
    budgets: dict[str, Any]
    #: the budget that ends the run (None: the run fits in its budgets)
    ends_by: str | None
    latency_s: float = 0.05


SCENARIOS = [
    # the writer is refused: the extractive report, written from what was gathered
    Budgeted("tokens-cut", {"max_tokens": 6_000, "fetch_concurrency": 8}, "tokens"),
    Budgeted("cost-cut", {"max_cost": 0.04}, "cost"),
    # calls take 0.4 s: the run ends by time whatever the machine's speed, and calls
    # running at the deadline are cut (the recording keeps the cut attempts too)
    Budgeted("time-cut", {"max_time": 4.0}, "time", latency_s=0.4),
    Budgeted("all-three-fit", {"max_tokens": 10**6, "max_cost": 5.0, "max_time": 3_600}, None),
]


async def _record(
    scenario: Budgeted, web: OfflineWeb, question: str, tmp_path: Path
) -> tuple[Report, list[RunEvent], ScriptedChatModel]:
    settings = offline_settings(web, tmp_path, prices=PRICES, **scenario.budgets)
    model = ScriptedChatModel(research_script(), latency_s=scenario.latency_s, per_token_s=0.002)
    events: list[RunEvent] = []
    report = await run_research(
        question, settings, models=dict.fromkeys(ROLES, model), sinks=[events.append]
    )
    assert isinstance(report, Report)
    return report, events, model


def _endings(events: list[RunEvent]) -> list[tuple[str, dict[str, Any], str]]:
    """Each ``budget_exhausted``: the budget, the spend it reports, its message."""
    out: list[tuple[str, dict[str, Any], str]] = []
    for event in events:
        if isinstance(event.data, BudgetExhausted):
            out.append((event.data.budget, dict(event.data.spend), event.message))
    return out


def _decisions(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "budget.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
async def test_a_budgeted_run_replays_byte_for_byte_with_no_socket(
    scenario: Budgeted, offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    report, events, model = await _record(scenario, offline_web, hotpot_question, tmp_path)
    recorded = _endings(events)
    decisions = _decisions(tmp_path / "data" / "recordings" / report.run_id)
    refused = [d for d in decisions if d["over"] is not None]
    if scenario.ends_by is None:
        assert not recorded and not refused and report.kind == "synthesized"
    else:
        # the budget cut the run: calls were refused, and the report says which budget
        assert [name for name, _, _ in recorded] == [scenario.ends_by]
        assert refused and all(d["over"] == scenario.ends_by for d in refused)
        assert report.limitations[0].startswith("Budget reached: ")
    if scenario.name == "tokens-cut":
        assert model.calls and report.kind == "extractive"
        assert any(d["at"].startswith("call ") for d in refused)  # a model call refused
    calls, asked = len(model.calls), len(offline_web.requests)

    replay_events: list[RunEvent] = []
    pytest_socket.disable_socket(allow_unix_socket=True)
    try:
        elsewhere = offline_settings(offline_web, tmp_path / "elsewhere")
        folder = recording_folder(offline_settings(offline_web, tmp_path), report.run_id)
        _, replayed = await replay_run(elsewhere, folder=folder, sinks=[replay_events.append])
    finally:
        pytest_socket.enable_socket()
        pytest_socket.socket_allow_hosts(["127.0.0.1", "::1", "localhost"], allow_unix_socket=True)

    assert len(model.calls) == calls and len(offline_web.requests) == asked
    assert to_markdown(replayed) == to_markdown(report)
    assert to_json(replayed) == to_json(report)
    # the same budget ended the replay, with the same message (the spend it names)
    assert _endings(replay_events) == recorded


async def test_a_budgeted_run_exported_with_record_replays_from_its_folder(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    report, _, _ = await _record(SCENARIOS[0], offline_web, hotpot_question, tmp_path)
    settings = offline_settings(offline_web, tmp_path, prices=PRICES)
    folder = export_recording(settings, report.run_id, tmp_path / "export")
    assert (folder / "budget.jsonl").is_file()
    _, replayed = await replay_run(offline_settings(offline_web, tmp_path / "x"), folder=folder)
    assert to_json(replayed) == to_json(report)


async def test_a_budgeted_recording_without_its_decisions_is_refused(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    """A recording made before the decisions were kept (no ``budget`` in ``holds``, no
    ``budget.jsonl``): refused before any work, saying why and what still works."""
    report, _, model = await _record(SCENARIOS[0], offline_web, hotpot_question, tmp_path)
    settings = offline_settings(offline_web, tmp_path, prices=PRICES)
    old = export_recording(settings, report.run_id, tmp_path / "old")
    (old / "budget.jsonl").unlink()
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    manifest["holds"] = [kind for kind in manifest["holds"] if kind != "budget"]
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    calls = len(model.calls)
    with pytest.raises(RunError, match="ran under a budget") as refused:
        await replay_run(offline_settings(offline_web, tmp_path / "x"), folder=old)
    assert "earlier version" in refused.value.message
    assert f"deepresearch report {report.run_id}" in (refused.value.hint or "")
    assert len(model.calls) == calls

    # decisions lost from a recording that says it holds them: a miss, named, not a guess
    damaged = export_recording(settings, report.run_id, tmp_path / "damaged")
    (damaged / "budget.jsonl").unlink()
    with pytest.raises(RunError, match="has no budget decision"):
        await replay_run(offline_settings(offline_web, tmp_path / "y"), folder=damaged)


async def test_a_budgeted_run_that_paused_replays_across_its_parts(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    """A run under a token budget that waited for its plan to be reviewed: each part of
    the run has its own budget guard (its clock starts with the part), and the budget
    cuts the second; the replay resumes with the recorded answer and follows the
    decisions of both parts."""
    settings = offline_settings(
        offline_web, tmp_path, prices=PRICES, review_plan=True, max_tokens=6_000
    )
    model = ScriptedChatModel(research_script(), latency_s=0.05, per_token_s=0.002)
    run: dict[str, Any] = {"run_id": "budget-paused", "models": dict.fromkeys(ROLES, model)}
    asked = await run_research(hotpot_question, settings, **run)
    assert isinstance(asked, InputRequest) and asked.kind == "plan"
    report = await run_research(None, settings, resume=True, reply={"action": "approve"}, **run)
    assert isinstance(report, Report) and report.limitations[0].startswith("Budget reached")
    calls = len(model.calls)
    pytest_socket.disable_socket(allow_unix_socket=True)
    try:
        _, replayed = await replay_run(
            offline_settings(offline_web, tmp_path / "elsewhere"),
            folder=recording_folder(settings, "budget-paused"),
        )
    finally:
        pytest_socket.enable_socket()
        pytest_socket.socket_allow_hosts(["127.0.0.1", "::1", "localhost"], allow_unix_socket=True)
    assert len(model.calls) == calls
    assert to_json(replayed) == to_json(report)
