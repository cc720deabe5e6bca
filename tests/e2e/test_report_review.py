"""The finished report's review (issue 28, seed 002): the run pauses after the audit with
the report's sentences; a person approves it, edits sentences (the new words audited
against the sentence's own citations like the writer's: an edit its quote does not
support is removed under strict and flagged under mark), or gives feedback for one
rewrite by the writer (refused without a writer: nothing applied, the run keeps
waiting). Real graph, checkpointer, search adapter and fetcher over the offline web."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deepresearch.errors import InvalidInput
from deepresearch.export.formats import render_bytes
from deepresearch.models import Report, RunEvent
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.registry import DEFAULT_RECIPE, get_recipe
from deepresearch.recipes.research.stages import write
from deepresearch.runner import pending_input, run_research
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import assert_citations_hold, offline_settings

UNSUPPORTED = "The Eiffel Tower was painted green in 1999 by 4000 volunteers from Atlantis."


def _markdown(report: Report) -> str:
    return render_bytes(get_recipe(DEFAULT_RECIPE), report, "md").decode()


async def _paused(settings: object, question: str, run_id: str, **more: object) -> InputRequest:
    request = await run_research(question, settings, run_id=run_id, **more)  # type: ignore[arg-type]
    assert isinstance(request, InputRequest) and request.kind == "report"
    return request


def _models() -> dict[str, ScriptedChatModel]:
    """The scripted writer, and a careful judge (the deterministic check's verdicts)."""
    return dict.fromkeys(ROLES, ScriptedChatModel(research_script()))


async def test_an_edit_its_citation_does_not_support_is_audited_away(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    models = _models()
    settings = offline_settings(offline_web, tmp_path, review_report=True)
    events: list[RunEvent] = []
    request = await _paused(
        settings, hotpot_question, "report-1", models=models, sinks=[events.append]
    )
    assert len(request.sentences) >= 2 and request.rewrite
    assert all(item.text and item.sources for item in request.sentences)
    assert events[-1].type == "input_requested" and events[-1].stage == "review_report"
    assert [s.id for s in events[-1].data.sentences] == [s.id for s in request.sentences]  # type: ignore[union-attr]
    assert "audit_completed" in [e.type for e in events]  # the audit ran first
    assert await pending_input(settings, "report-1") == request  # checkpointed

    first, second = request.sentences[0], request.sentences[1]
    events.clear()
    report = await run_research(
        None,
        settings,
        run_id="report-1",
        resume=True,
        reply={"action": "edit", "sentences": {first.id: UNSUPPORTED, second.id: ""}},
        models=models,
        sinks=[events.append],
    )
    assert isinstance(report, Report)
    markdown = _markdown(report)
    assert UNSUPPORTED not in markdown  # the audit removed the unsupported edit
    body = [
        s.text
        for sec in report.sections
        if sec.kind == "body"
        for p in sec.paragraphs
        for s in p.sentences
    ]
    shown = [s.text for s in report.summary] + body
    assert shown.count(second.text) == [i.text for i in request.sentences].count(second.text) - 1
    assert report.audit is not None and report.audit.removed >= 1
    assert any("review edited 1 sentence(s) and removed 1" in line for line in report.limitations)
    received = next(e for e in events if e.type == "input_received")
    assert received.data.kind == "report" and received.data.action == "edit"  # type: ignore[union-attr]
    assert received.data.edited == [first.id, second.id]  # type: ignore[union-attr]
    audited = next(e for e in events if e.type == "edits_audited")
    assert audited.data.edited == 1 and audited.data.removed == 1  # type: ignore[union-attr]
    assert audited.data.unsupported + audited.data.uncited == 1  # type: ignore[union-attr]
    assert not any(e.stage == "write" for e in events)  # an edit is not a rewrite
    assert_citations_hold(report, offline_web)


async def test_under_mark_the_unsupported_edit_stays_flagged_and_a_good_one_passes(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    models = _models()
    settings = offline_settings(offline_web, tmp_path, review_report=True, audit="mark")
    request = await _paused(settings, hotpot_question, "report-2", models=models)
    first, second = request.sentences[0], request.sentences[1]
    kept = second.text  # its words again, with a citation mark a person may copy along
    report = await run_research(
        None,
        settings,
        run_id="report-2",
        resume=True,
        reply={
            "action": "edit",
            "sentences": {first.id: UNSUPPORTED, second.id: f"{kept} [1]"},
        },
        models=models,
    )
    assert isinstance(report, Report)
    by_text = {s.text: s for s in report.all_sentences()}
    assert by_text[UNSUPPORTED].audit in ("unsupported", "uncited")
    assert by_text[UNSUPPORTED].citations  # it keeps the citations it had
    assert kept in by_text  # the same words with a copied mark: not an edit, kept as it was
    assert UNSUPPORTED in _markdown(report)
    assert report.audit is not None and report.audit.removed == 0
    data = json.loads(render_bytes(get_recipe(DEFAULT_RECIPE), report, "json"))
    assert UNSUPPORTED in json.dumps(data)


async def test_feedback_without_a_writer_is_refused_and_nothing_applied(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    """The extractive report: its quotes (the Verified Findings) are not editable, and
    feedback needs a writer: it is refused, the run keeps waiting, approving ends it."""
    settings = offline_settings(offline_web, tmp_path, model="none", review_report=True)
    request = await _paused(settings, hotpot_question, "report-3")
    assert not request.rewrite
    for bad, reason in (
        ({"action": "feedback", "feedback": "Shorter, please."}, "feedback needs a writer"),
        ({"action": "edit"}, "named none"),
        ({"action": "edit", "sentences": {"s999": "x"}}, "no sentence has the id 's999'"),
        ({"action": "drop", "drop": ["x"]}, "action"),
        ("approve", "report reply"),
    ):
        with pytest.raises(InvalidInput, match=reason):
            await run_research(None, settings, run_id="report-3", resume=True, reply=bad)
    assert await pending_input(settings, "report-3") == request  # nothing applied
    report = await run_research(
        None, settings, run_id="report-3", resume=True, reply={"action": "approve"}
    )
    assert isinstance(report, Report) and report.kind == "extractive"


async def test_edits_that_change_nothing_or_remove_everything_are_refused(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    models = _models()
    settings = offline_settings(offline_web, tmp_path, review_report=True)
    request = await _paused(settings, hotpot_question, "report-6", models=models)
    first = request.sentences[0]
    everything = {item.id: "" for item in request.sentences}
    for bad, reason in (
        ({"action": "edit", "sentences": {first.id: f" {first.text} "}}, "changes no sentence"),
        ({"action": "edit", "sentences": everything}, "removing every sentence"),
        ({"action": "feedback", "feedback": "no"}, "the feedback is 2 characters"),
    ):
        with pytest.raises(InvalidInput, match=reason):
            await run_research(
                None, settings, run_id="report-6", resume=True, reply=bad, models=models
            )
    assert await pending_input(settings, "report-6") == request


async def test_feedback_rewrites_the_report_once_with_the_feedback(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    model = ScriptedChatModel(research_script())
    models = dict.fromkeys(ROLES, model)
    settings = offline_settings(offline_web, tmp_path, review_report=True)
    request = await _paused(settings, hotpot_question, "report-4", models=models)
    assert request.rewrite and request.sentences
    feedback = "Put the birthplace first and keep it short."
    before = len(model.calls)
    events: list[RunEvent] = []
    report = await run_research(
        None,
        settings,
        run_id="report-4",
        resume=True,
        reply={"action": "feedback", "feedback": feedback},
        models=models,
        sinks=[events.append],
    )
    assert isinstance(report, Report) and report.kind == "synthesized"
    prompts = [str(call[-1].content) for call in model.calls[before:]]
    assert prompts and all(f"{write.FEEDBACK}: {feedback}" in prompt for prompt in prompts[:1])
    assert [e.type for e in events].count("report_ready") == 1  # one rewrite
    assert "audit_completed" in [e.type for e in events]  # the rewrite is audited
    assert "input_requested" not in [e.type for e in events]  # not asked again
    received = next(e for e in events if e.type == "input_received")
    assert received.data.feedback == feedback  # type: ignore[union-attr]
    assert_citations_hold(report, offline_web)


async def test_the_review_is_off_by_default(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    events: list[RunEvent] = []
    settings = offline_settings(offline_web, tmp_path, model="none")
    report = await run_research(hotpot_question, settings, run_id="report-5", sinks=[events.append])
    assert isinstance(report, Report)
    assert not {"input_requested", "edits_audited"} & {e.type for e in events}


async def test_a_reviewed_and_edited_report_replays_byte_for_byte(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    """The report review's answer is on the tape like the other pauses': the replay
    resumes with it, audits the edit again the same way, and writes the same report."""
    from .test_replay_pauses import _replay_elsewhere, _same

    models = _models()
    settings = offline_settings(offline_web, tmp_path, review_report=True)
    request = await _paused(settings, hotpot_question, "report-7", models=models)
    edit = {"action": "edit", "sentences": {request.sentences[0].id: UNSUPPORTED}}
    report = await run_research(
        None, settings, run_id="report-7", resume=True, reply=edit, models=models
    )
    assert isinstance(report, Report)
    replayed, folder = await _replay_elsewhere(settings, "report-7", offline_web, tmp_path)
    _same(replayed, report)
    answers = [json.loads(line) for line in (folder / "answers.jsonl").read_text().splitlines()]
    assert [a["kind"] for a in answers] == ["report"]
    assert answers[0]["answer"]["sentences"] == edit["sentences"]
