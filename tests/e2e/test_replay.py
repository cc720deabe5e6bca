"""Replay (issue 19): every end-to-end scenario that writes a report, run for real over
the offline web (only the model's words scripted), then replayed from its recording in a
new data folder: the same report in every format byte for byte, with no model call, no search
and no fetch during the replay (counted on the offline web and the scripted model)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deepresearch.compose.replay import export_recording, replay_run
from deepresearch.errors import InvalidInput, RunError, RunNotFound
from deepresearch.export.formats import FORMATS, render_bytes
from deepresearch.export.report_render import to_json, to_markdown
from deepresearch.models import Report
from deepresearch.recipes.registry import get_recipe
from deepresearch.runner import run_research
from deepresearch.settings import Settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import offline_settings


@dataclass(frozen=True)
class Scenario:
    name: str
    settings: dict[str, Any]
    #: the scripted model for every role, or None for a run without a model
    model: Callable[[], ScriptedChatModel] | None


def _scripted() -> ScriptedChatModel:
    return ScriptedChatModel(research_script(bad_citations=True))


SCENARIOS = [
    Scenario("scripted", {}, _scripted),
    Scenario("no-model", {"model": "none"}, None),
    Scenario("council-and-eval", {"council": True, "evaluate": True}, _scripted),
    Scenario("mark-audit-concurrent", {"audit": "mark", "fetch_concurrency": 8}, _scripted),
    Scenario("deep-no-model", {"model": "none", "depth": "deep", "min_domains": 3}, None),
    Scenario("no-search", {"search": "none"}, _scripted),
]


async def _record(
    scenario: Scenario, web: OfflineWeb, question: str, tmp_path: Path
) -> tuple[Settings, Report, ScriptedChatModel | None]:
    settings = offline_settings(web, tmp_path, **scenario.settings)
    model = scenario.model() if scenario.model is not None else None
    report = await run_research(
        question, settings, models=dict.fromkeys(ROLES, model) if model is not None else None
    )
    assert isinstance(report, Report)
    return settings, report, model


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
async def test_replay_reproduces_the_report_byte_for_byte_offline(
    scenario: Scenario, offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings, report, model = await _record(scenario, offline_web, hotpot_question, tmp_path)
    asked = len(offline_web.requests)
    calls = len(model.calls) if model is not None else 0
    assert asked > 0  # the recorded run searched and fetched for real

    _, replayed = await replay_run(settings, report.run_id)

    assert len(offline_web.requests) == asked  # no search, no fetch
    assert (len(model.calls) if model is not None else 0) == calls  # no model call
    assert to_markdown(replayed) == to_markdown(report)
    assert to_json(replayed) == to_json(report)
    recipe = get_recipe("research")
    for fmt in FORMATS:  # every format, the zip-based ones (DOCX, ODT) too
        assert render_bytes(recipe, replayed, fmt) == render_bytes(recipe, report, fmt), fmt


async def test_a_copied_recording_replays_in_a_new_data_folder_without_the_key(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    key = "sk-replaytest-0123456789abcdef"
    scenario = Scenario("keyed", {"model_api_key": key}, _scripted)
    settings, report, _ = await _record(scenario, offline_web, hotpot_question, tmp_path)
    folder = export_recording(settings, report.run_id, tmp_path / "export")
    for item in folder.iterdir():
        assert key not in item.read_text(encoding="utf-8"), item.name
    elsewhere = offline_settings(offline_web, tmp_path / "elsewhere")
    _, replayed = await replay_run(elsewhere, folder=folder)
    assert to_json(replayed) == to_json(report)
    with pytest.raises(InvalidInput, match="not empty"):
        export_recording(settings, report.run_id, folder)


async def test_a_replay_that_cannot_be_exact_says_why(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none")
    with pytest.raises(RunNotFound, match="has no recording"):
        await replay_run(settings, "never-ran")
    paused = await run_research(hotpot_question, settings, run_id="paused-run", stop_after="plan")
    assert paused is None
    with pytest.raises(RunError, match="did not finish"):
        await replay_run(settings, "paused-run")
    unrecorded = offline_settings(offline_web, tmp_path / "off", model="none", record_runs=False)
    report = await run_research(hotpot_question, unrecorded)
    assert report is not None
    with pytest.raises(RunNotFound, match="has no recording"):
        await replay_run(unrecorded, report.run_id)

    # a budget's decisions are on the recording (``test_replay_budget.py``): it replays;
    # a recording made before they were kept is refused
    budgeted = offline_settings(offline_web, tmp_path / "budget", model="none", max_tokens=10**6)
    report = await run_research(hotpot_question, budgeted)
    assert report is not None
    _, replayed = await replay_run(budgeted, report.run_id)
    assert to_json(replayed) == to_json(report)
    manifest_path = tmp_path / "budget" / "data" / "recordings" / report.run_id / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["holds"].remove("budget")
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(RunError, match=r"ran under a budget .* made by an earlier version"):
        await replay_run(budgeted, report.run_id)
    shutil.rmtree(manifest_path.parent)  # not one for the suite's replay of every run

    # a recording whose report was not the one it reproduces: refused, not passed off
    done = await run_research(hotpot_question, settings, run_id="done-run")
    assert done is not None
    manifest_path = tmp_path / "data" / "recordings" / "done-run" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["result_sha256"] = "0" * 64
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(RunError, match="gave a different report"):
        await replay_run(settings, "done-run")
    manifest_path.write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidInput, match="not a run recording"):
        await replay_run(settings, "done-run")
    shutil.rmtree(manifest_path.parent)  # not one for the suite's replay of every run
