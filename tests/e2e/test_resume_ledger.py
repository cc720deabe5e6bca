"""A resumed run reports what a run that never stopped reports: the pages it fetched
(``run_completed``), its model usage, and the model problems the report's limitations
name, all kept in checkpointed state (``deepresearch/ledger.py``), not in the process."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import BaseMessage

from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import RunCompleted
from deepresearch.runner import run_research
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import offline_settings


def _broken_planner(messages: list[BaseMessage]) -> str:
    raise ValueError("the planner's server answered garbage")


async def _run(
    web: OfflineWeb, question: str, folder: Path, *, pause: bool
) -> tuple[Report, RunCompleted]:
    """A run whose planner fails (intake and plan fall back, each with a model error);
    with ``pause``, stopped after the first research wave and resumed by a new process
    (a new gateway and context)."""
    settings = offline_settings(web, folder, model="none")
    models = {"planner": ScriptedChatModel(_broken_planner)}
    events: list[RunEvent] = []
    if pause:
        paused = await run_research(
            question, settings, run_id="run-ledger", models=models, stop_after="research"
        )
        assert paused is None
        report = await run_research(
            None, settings, run_id="run-ledger", resume=True, models=models, sinks=[events.append]
        )
        assert events[0].type == "run_resumed"
    else:
        report = await run_research(
            question, settings, run_id="run-ledger", models=models, sinks=[events.append]
        )
    assert report is not None
    completed = [event for event in events if event.type == "run_completed"]
    assert len(completed) == 1
    done = completed[0].data
    assert isinstance(done, RunCompleted)
    return report, done


async def test_a_resumed_run_reports_the_same_fetches_usage_and_model_problems(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    clean, clean_done = await _run(offline_web, hotpot_question, tmp_path / "clean", pause=False)
    resumed, resumed_done = await _run(
        offline_web, hotpot_question, tmp_path / "resumed", pause=True
    )
    assert clean.kind == resumed.kind == "extractive"
    assert [ref.url for ref in resumed.sources] == [ref.url for ref in clean.sources]

    # the pages fetched before the pause count: every one of them, once
    assert clean_done.fetches > 0
    assert resumed_done.fetches == clean_done.fetches

    # the planner's failures happened before the pause; the report still names them
    problems = [note for note in clean.limitations if note.startswith("Model problems")]
    assert len(problems) == 1 and "failed (ValueError)" in problems[0]
    assert resumed.limitations == clean.limitations

    # usage: the two failed planner calls, recorded once each
    assert clean.usage.calls == clean.usage.failed_calls == 2
    assert resumed.usage == clean.usage
    assert resumed_done.input_tokens == clean_done.input_tokens
