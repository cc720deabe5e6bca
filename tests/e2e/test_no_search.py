"""``--search none`` (issue 16, seed 004's no-search mode): with a model, the run answers from
the model's knowledge and says so in every format; without one it ends in the abort report,
as before. Nothing is searched or fetched either way."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import BaseMessage

from deepresearch.export.report_render import render
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import ReportReady, RunCompleted
from deepresearch.recipes.research.stages import answer
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel

from ..event_schema import assert_events_match_schema

LABEL = "not researched: no sources were searched"
QUESTION = "Why did the Western Roman Empire fall?"


def _settings(tmp_path: Path, **extra: object):  # type: ignore[no-untyped-def]
    return load_settings(search="none", data_dir=tmp_path / "data", depth="quick", **extra)


async def test_a_model_answers_without_search_and_every_format_says_so(tmp_path: Path) -> None:
    model = ScriptedChatModel(research_script())
    events: list[RunEvent] = []
    report = await run_research(
        QUESTION, _settings(tmp_path), models=dict.fromkeys(ROLES, model), sinks=[events.append]
    )
    assert report is not None and report.kind == "unresearched"
    assert report.summary and report.sections  # the model's answer
    assert report.sources == [] and report.evidence == []
    assert not [e for e in events if e.type in ("wave_started", "search_completed")]
    asked = [c for c in model.calls if str(c[0].content).startswith(answer.SYSTEM[:40])]
    assert len(asked) == 1

    markdown, page, data = (render(report, fmt) for fmt in ("md", "html", "json"))
    assert LABEL in markdown and markdown.index(LABEL) < markdown.index(report.summary[0].text)
    assert LABEL in page and '<p class="notice">' in page
    parsed = json.loads(data)
    assert parsed["kind"] == "unresearched"
    assert LABEL in parsed["notice"] and LABEL in parsed["markdown"]
    assert any("No search was run" in item for item in parsed["limitations"])
    done = [e.data for e in events if isinstance(e.data, RunCompleted)]
    assert done and done[0].kind == "unresearched"
    ready = [e.data for e in events if isinstance(e.data, ReportReady)]
    assert [r.kind for r in ready] == ["unresearched"]
    assert_events_match_schema(events)


async def test_without_a_model_no_search_still_aborts(tmp_path: Path) -> None:
    report = await run_research(QUESTION, _settings(tmp_path, model="none"))
    assert report is not None and report.kind == "abort"
    assert LABEL not in render(report, "md")


async def test_a_model_that_gives_no_answer_ends_in_the_abort_report(tmp_path: Path) -> None:
    research = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(answer.SYSTEM[:40]):
            return "I cannot help with that."  # not the answer's schema, twice
        return research(messages)

    model = ScriptedChatModel(reply)
    report = await run_research(QUESTION, _settings(tmp_path), models=dict.fromkeys(ROLES, model))
    assert report is not None and report.kind == "abort"
    assert "no search, and no answer" in report.limitations
