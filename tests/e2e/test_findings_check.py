"""The findings check (issue 16, seed 002): before writing, every verified finding's claim
is read against its own quote, and a finding its quote does not support never reaches the
writer. The summarizer here fabricates one claim (a real, verified quote, with a claim it
does not say); the judge, or without one the deterministic checker, drops it, the writer
never sees it, and the audit counts it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from deepresearch.export.report_render import to_markdown
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_checks import FindingsChecked
from deepresearch.recipes.research.stages import check, compress, write
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES, Role
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..event_schema import assert_events_match_schema
from .helpers import assert_citations_hold, offline_settings

FABRICATED = "Marie Curie opened the Quayside studio in Lisbon in 1925 with 4,000 workers."


def _fabricating_model() -> ScriptedChatModel:
    """A careful model, except that its summarizer once claims what its quote never says."""
    research = research_script()
    done = False

    def reply(messages: list[BaseMessage]) -> str:
        nonlocal done
        answer = research(messages)
        if not done and str(messages[0].content).startswith(compress.SYSTEM.splitlines()[0]):
            digest = json.loads(answer)
            if digest["evidence"]:
                digest["evidence"][0]["claim"] = FABRICATED
                done = True
                return json.dumps(digest)
        return answer

    return ScriptedChatModel(reply)


async def _run(
    web: OfflineWeb, question: str, tmp_path: Path, *, judge: bool
) -> tuple[Report, list[RunEvent], ScriptedChatModel]:
    model = _fabricating_model()
    models: dict[Role, BaseChatModel | None] = dict.fromkeys(ROLES, model)
    if not judge:
        models["judge"] = None
    events: list[RunEvent] = []
    report = await run_research(
        question, offline_settings(web, tmp_path), models=models, sinks=[events.append]
    )
    assert report is not None
    return report, events, model


@pytest.mark.parametrize("judge", [True, False], ids=["judge", "deterministic"])
async def test_a_fabricated_finding_is_dropped_before_writing(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path, judge: bool
) -> None:
    report, events, model = await _run(offline_web, hotpot_question, tmp_path, judge=judge)
    (checked,) = [e.data for e in events if isinstance(e.data, FindingsChecked)]
    assert checked.findings_unsupported == 1
    # a claim that is its own quote needs no check; the others went to the judge, or not
    assert ("judge" in checked.methods) is judge
    assert ("deterministic" in checked.methods) is not judge
    (dropped,) = checked.dropped
    assert "findings_checked" in assert_events_match_schema(events)

    # the summarizer did make the claim, and the finding was verified (its quote is real)
    fabricated = [
        call
        for call in model.calls
        if str(call[0].content).startswith(compress.SYSTEM.splitlines()[0])
    ]
    assert fabricated
    if judge:  # the judge was shown the claim with its quote
        shown = [c for c in model.calls if str(c[0].content).startswith(check.SYSTEM[:40])]
        assert any(FABRICATED in str(call[-1].content) for call in shown)

    # ... but the writer never saw it, and the report neither cites nor says it
    writer = [c for c in model.calls if str(c[0].content).startswith(write.SYSTEM[:40])]
    writer += [c for c in model.calls if str(c[0].content).startswith(write.FINDINGS_SYSTEM[:40])]
    assert writer, "the writer was not called"
    assert all(FABRICATED not in str(call[-1].content) for call in writer)
    assert dropped not in {item.id for item in report.evidence}
    assert FABRICATED not in to_markdown(report)

    # the audit counts it, and says so
    audit = report.audit
    assert audit is not None
    assert audit.findings_unsupported == 1
    assert audit.findings_checked == checked.findings_checked >= 2
    assert any("findings check dropped 1 finding" in item for item in report.limitations)
    assert "1 unsupported and dropped before writing" in to_markdown(report)
    assert_citations_hold(report, offline_web)


async def test_a_run_without_a_model_checks_nothing_it_need_not(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    """Without a summarizer the claim is the quote itself: every finding is supported as it
    stands, nothing is dropped and no model is asked."""
    events: list[RunEvent] = []
    settings = offline_settings(offline_web, tmp_path, model="none")
    report = await run_research(hotpot_question, settings, sinks=[events.append])
    assert report is not None and report.kind == "extractive"
    (checked,) = [e.data for e in events if isinstance(e.data, FindingsChecked)]
    assert checked.findings_unsupported == 0 and checked.methods == ["quote"]
    assert report.audit is not None and report.audit.findings_checked > 0
