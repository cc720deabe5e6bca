"""Runs that wait for a person (issue 15): a clarifying question answered continues the
same run to a report; a plan reviewed and edited is what is researched. Real graph,
checkpointer, search adapter and fetcher over the offline web; only the model's words are
scripted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage

import deepresearch
from deepresearch.core.planning import fallback_queries
from deepresearch.errors import ConfigError, InputRequired, InvalidInput
from deepresearch.models import Report, RunEvent
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.research.stages import intake
from deepresearch.runner import pending_input, run_research
from deepresearch.settings_groups import RunLimits
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import assert_citations_hold, offline_settings

ASKED = "Which aspect matters to you: the people or the places?"
ANSWER = "the people involved"


def clarifying_model() -> ScriptedChatModel:
    """The research script, except that intake asks one clarifying question."""
    research = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(intake.SYSTEM.splitlines()[0]):
            return json.dumps({"intent": "clarify", "reply": ASKED})
        return research(messages)

    return ScriptedChatModel(reply)


def _prompts(model: ScriptedChatModel, system_start: str) -> list[str]:
    return [
        str(call[-1].content)
        for call in model.calls
        if str(call[0].content).startswith(system_start)
    ]


async def test_clarification_pauses_and_the_answer_continues_the_same_run(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    from deepresearch.recipes.research.stages import plan

    model = clarifying_model()
    models = dict.fromkeys(ROLES, model)
    settings = offline_settings(offline_web, tmp_path)
    events: list[RunEvent] = []
    first = await run_research(
        hotpot_question, settings, run_id="clarify-1", models=models, sinks=[events.append]
    )
    # a pause, not a failure and not a report
    assert isinstance(first, InputRequest)
    assert first.kind == "clarification" and first.question == ASKED
    assert events[-1].type == "input_requested"
    assert events[-1].data.question == ASKED and events[-1].data.kind == "clarification"
    assert not any(e.type in ("run_failed", "run_completed", "plan_ready") for e in events)
    assert await pending_input(settings, "clarify-1") == first
    intake_calls = len(_prompts(model, intake.SYSTEM.splitlines()[0]))

    report = await run_research(
        None,
        settings,
        run_id="clarify-1",
        resume=True,
        reply=ANSWER,
        models=models,
        sinks=[events.append],
    )
    assert isinstance(report, Report) and report.kind == "synthesized"
    assert_citations_hold(report, offline_web)
    # the same run: intake was not asked again, and planning saw the question and answer
    assert len(_prompts(model, intake.SYSTEM.splitlines()[0])) == intake_calls == 1
    # intake drafted a plan of the bare question at the same time (core.intake.plan_ahead);
    # the clarified run did not use it: it planned again with the question and answer
    ahead, planned = _prompts(model, plan.SYSTEM.splitlines()[0])
    assert ASKED not in ahead
    assert f"Clarifying question: {ASKED}\nAnswer: {ANSWER}" in planned
    received = next(e for e in events if e.type == "input_received")
    assert received.data.model_dump(exclude_none=True) == {
        "kind": "clarification",
        "question": ASKED,
        "answer": ANSWER,
    }
    ready = next(e for e in events if e.type == "plan_ready")
    assert ASKED in str(ready.data.brief) and ANSWER in str(ready.data.brief)
    assert await pending_input(settings, "clarify-1") is None
    # the recording holds the answer: the replay resumes with it, with no person and no
    # model call, to the same report (``test_replay_pauses.py`` replays with no socket)
    from deepresearch.compose.replay import replay_run
    from deepresearch.export.report_render import to_json

    calls = len(model.calls)
    _, replayed = await replay_run(settings, run_id="clarify-1")
    assert to_json(replayed) == to_json(report) and len(model.calls) == calls


async def test_a_bad_answer_is_refused_and_the_run_keeps_waiting(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    model = clarifying_model()
    models = dict.fromkeys(ROLES, model)
    settings = offline_settings(offline_web, tmp_path)
    asked = await run_research(hotpot_question, settings, run_id="clarify-2", models=models)
    assert isinstance(asked, InputRequest)
    for bad in ("   ", "\x1b[2J\x07", "x" * 2001, {"action": "approve"}):
        with pytest.raises(InvalidInput):
            await run_research(
                None, settings, run_id="clarify-2", resume=True, reply=bad, models=models
            )
    assert await pending_input(settings, "clarify-2") == asked
    report = await run_research(
        None, settings, run_id="clarify-2", resume=True, reply=" the  people ", models=models
    )
    assert isinstance(report, Report)
    # a finished run, or one that does not exist, takes no reply
    with pytest.raises(ConfigError, match="not waiting"):
        await run_research(
            None, settings, run_id="clarify-2", resume=True, reply="again", models=models
        )
    with pytest.raises(ConfigError, match="no run"):
        await run_research(None, settings, run_id="nothing", resume=True, reply="x")


async def test_library_research_events_yield_the_request_and_take_the_answer(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    model = clarifying_model()
    stream = deepresearch.research_events(
        hotpot_question,
        settings=offline_settings(offline_web, tmp_path),
        models=dict.fromkeys(ROLES, model),
    )
    types = []
    async for event in stream:
        types.append(event.type)
        if event.type == "input_requested":
            assert event.data.question == ASKED
            stream.reply(ANSWER)
    assert stream.report is not None and stream.report.kind == "synthesized"
    assert types.count("input_requested") == 1 and types.count("input_received") == 1
    assert types[-1] == "run_completed"


async def test_library_research_without_an_answer_raises_and_reply_continues(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    model = clarifying_model()
    settings = offline_settings(offline_web, tmp_path)
    models = dict.fromkeys(ROLES, model)
    with pytest.raises(InputRequired) as caught:
        await deepresearch.research_async(hotpot_question, settings=settings, models=models)
    request = caught.value.request
    assert isinstance(request, InputRequest) and request.question == ASKED
    report = await deepresearch.reply_async(
        request.run_id, ANSWER, settings=settings, models=models
    )
    assert report.kind == "synthesized" and report.run_id == request.run_id
    # on_input answers in the same call
    asked: list[str] = []
    report = await deepresearch.research_async(
        hotpot_question,
        settings=settings,
        models=models,
        on_input=lambda req: asked.append(req.question) or ANSWER,
    )
    assert report.kind == "synthesized" and asked == [ASKED]


async def test_an_edited_plan_is_what_is_searched_without_a_model(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", review_plan=True)
    offline_web.reset_log()
    request = await run_research(hotpot_question, settings, run_id="review-1")
    assert isinstance(request, InputRequest) and request.kind == "plan"
    assert request.brief and 1 <= len(request.sub_questions) <= 8
    assert offline_web.search_queries() == []  # nothing searched before the review
    original = {q for item in request.sub_questions for q in item.queries}

    # invalid edits are refused with the reason, and the run keeps waiting
    for bad, reason in (
        ({"action": "edit", "sub_questions": []}, "1 to 8 sub-questions"),
        (
            {"action": "edit", "sub_questions": [f"Question number {i}?" for i in range(9)]},
            "1 to 8 sub-questions",
        ),
        ({"action": "edit", "sub_questions": ["ok?", "x" * 301]}, "sub-question 2"),
        ({"action": "edit", "brief": "  "}, "brief is empty"),
        ({"action": "edit", "sub_questions": ["Same one?", "same ONE"]}, "repeats"),
        ({"action": "rewrite"}, "action"),
        ("approve", "plan reply"),
    ):
        with pytest.raises(InvalidInput, match=reason):
            await run_research(None, settings, run_id="review-1", resume=True, reply=bad)
    assert await pending_input(settings, "review-1") == request

    edited = ["Where was Christopher Nolan born?", "Which films did Sathish Kalathil direct?"]
    events: list[RunEvent] = []
    report = await run_research(
        None,
        settings,
        run_id="review-1",
        resume=True,
        reply={"action": "edit", "brief": "Compare two film directors.", "sub_questions": edited},
        sinks=[events.append],
    )
    assert isinstance(report, Report)
    searched = offline_web.search_queries()
    assert searched, "nothing was searched"
    wave_one = next(e for e in events if e.type == "wave_started")
    assert [u.text for u in wave_one.data.units] == edited  # type: ignore[index]
    # every first-wave query comes from the edited sub-questions, none from the old plan
    first_wave = {
        q
        for e in events
        if e.type == "search_completed" and e.data.wave == 1
        for q in e.data.queries  # type: ignore[union-attr]
    }
    per_question = RunLimits.of(settings).queries_per_question
    expected = {  # SearXNG understands operators: the planner's own rule for them
        q for text in edited for q in fallback_queries(text, count=per_question, operators=True)
    }
    assert first_wave == expected
    assert not first_wave & original
    assert first_wave <= set(searched)  # sent to the search engine as they are
    received = next(e for e in events if e.type == "input_received")
    assert received.data.action == "edit"
    assert received.data.brief == "Compare two film directors."
    assert report.question == hotpot_question


async def test_an_approved_plan_is_researched_as_planned(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", review_plan=True)
    request = await run_research(hotpot_question, settings, run_id="review-2")
    assert isinstance(request, InputRequest)
    events: list[RunEvent] = []
    report = await run_research(
        None,
        settings,
        run_id="review-2",
        resume=True,
        reply={"action": "approve"},
        sinks=[events.append],
    )
    assert isinstance(report, Report) and report.kind == "extractive"
    wave_one = next(e for e in events if e.type == "wave_started")
    assert [u.text for u in wave_one.data.units] == [  # type: ignore[index]
        item.text for item in request.sub_questions
    ]


async def test_an_answer_the_run_is_already_past_is_not_applied_again(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    """A service worker that takes an answered job over resumes it with the answer and the
    pause it answers (``reply_to``): a run already past that pause just goes on."""
    model = clarifying_model()
    models = dict.fromkeys(ROLES, model)
    settings = offline_settings(offline_web, tmp_path)
    asked = await run_research(hotpot_question, settings, run_id="past-1", models=models)
    assert isinstance(asked, InputRequest)
    events: list[RunEvent] = []
    stopped = await run_research(
        None, settings, run_id="past-1", resume=True, reply=ANSWER, reply_to=asked.id,
        models=models, stop_after="plan", sinks=[events.append],
    )  # fmt: skip
    assert stopped is None  # past the pause, stopped after planning (a crash, say)
    report = await run_research(
        None, settings, run_id="past-1", resume=True, reply=ANSWER, reply_to=asked.id,
        models=models, sinks=[events.append],
    )  # fmt: skip
    assert isinstance(report, Report) and report.kind == "synthesized"
    assert [e.type for e in events].count("input_received") == 1
