"""Follow-up turns over the offline web: a follow-up reuses its thread's pages and
verified evidence (no page fetched twice), cites evidence from both turns with quotes
that verify, and a follow-up on another topic starts afresh (issue 15 part 5)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from deepresearch.export.formats import render_text
from deepresearch.models import Report, RunEvent
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.registry import get_recipe
from deepresearch.recipes.research.stages import intake
from deepresearch.recipes.research.threads import thread_turns
from deepresearch.runner import run_recipe
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import scripted_models
from deepresearch.testing.web import OfflineWeb

from .helpers import assert_citations_hold, offline_settings

FIRST = "How does acid rain form?"
FOLLOW = "Which air pollution causes acid rain, and what does acid rain do to lakes?"
SHIFT = "Who was Alfred Hitchcock and which films did he direct?"


async def _turn(
    settings: Any, question: str, run_id: str, follows: str | None = None, **kw: Any
) -> tuple[Report, list[RunEvent]]:
    recipe = get_recipe("research")
    events: list[RunEvent] = []
    options = {"followup_of": follows} if follows else {}
    report = await run_recipe(
        recipe,
        recipe.request(question, options),
        settings,
        run_id=run_id,
        sinks=[events.append],
        **kw,
    )
    assert isinstance(report, Report)
    return report, events


def _page_paths(web: OfflineWeb) -> list[str]:
    return [r.path for r in web.requests if r.path.startswith("/page/")]


def _event(events: list[RunEvent], kind: str) -> RunEvent:
    found = [e for e in events if e.type == kind]
    assert len(found) == 1, f"{kind}: {len(found)}"
    return found[0]


async def test_a_followup_fetches_no_page_twice_and_cites_both_turns(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", page_cache_ttl_s=0)
    offline_web.reset_log()
    first, _ = await _turn(settings, FIRST, "run-first")
    turn1 = _page_paths(offline_web)
    second, events = await _turn(settings, FOLLOW, "run-second", follows="run-first")
    turn2 = _page_paths(offline_web)[len(turn1) :]
    print(f"pages fetched: turn 1 {len(turn1)}, turn 2 {len(turn2)}")
    assert turn1
    assert not set(turn1) & set(turn2), "a page read in turn 1 was fetched again"
    assert len(turn2) == len(set(turn2))
    started = _event(events, "followup_started")
    assert started.data.turn == 2 and started.data.topic_shift is False
    assert started.data.reused_evidence > 0
    done = _event(events, "run_completed")
    assert done.data.fetches == len(turn2)
    old_ids = {item.id for item in first.evidence}
    cited = set(second.cited_evidence_ids())
    assert cited & old_ids, "the follow-up cites nothing from turn 1"
    assert cited - old_ids, "the follow-up cites nothing new"
    assert second.followup is not None and second.followup.root == "run-first"
    assert_citations_hold(second, offline_web)
    numbers = [ref.number for ref in second.sources]
    assert numbers == list(range(1, len(numbers) + 1))
    turns = await thread_turns(settings, "run-second")
    assert [(t.run_id, t.turn) for t in turns] == [("run-first", 1), ("run-second", 2)]


async def test_a_topic_shift_without_a_model_starts_fresh_research(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", page_cache_ttl_s=0)
    first, _ = await _turn(settings, FIRST, "run-a")
    second, events = await _turn(settings, SHIFT, "run-b", follows="run-a")
    started = _event(events, "followup_started")
    assert started.data.topic_shift is True and started.data.method == "lexical"
    assert started.data.reused_sources == started.data.reused_evidence == 0
    plan = _event(events, "plan_ready")
    assert plan.data.sub_questions[0].id == "q1"  # a plan of its own
    assert not {item.id for item in first.evidence} & set(second.cited_evidence_ids())
    assert not {ref.url for ref in first.sources} & {ref.url for ref in second.sources}
    assert second.followup is not None and second.followup.topic_shift
    assert "researched afresh" in render_text(get_recipe("research"), second, "md")
    turns = await thread_turns(settings, "run-a")
    assert [(t.run_id, t.topic_shift) for t in turns] == [("run-a", False), ("run-b", True)]


def _topic_script(same_topic: bool) -> Callable[[list[BaseMessage]], str]:
    """The research script, and the model's verdict on the topic."""
    base = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        if messages[0].text.startswith("You decide whether a follow-up"):
            return json.dumps({"same_topic": same_topic, "reason": "scripted verdict"})
        return base(messages)

    return reply


async def test_the_model_decides_the_topic_when_there_is_one(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    """ "How does it form in clouds?" shares words with the thread; the model says new
    topic here, so the turn starts afresh; in another thread it says same topic, and the
    turn reuses the thread."""
    follow = "Where do acid rain clouds form?"
    for same, run in ((False, "shift"), (True, "same")):
        # a data folder each: the model's replies are cached by prompt
        settings = offline_settings(offline_web, tmp_path / run, page_cache_ttl_s=0)
        models = scripted_models(_topic_script(same))
        await _turn(settings, FIRST, f"run-{run}-1", models=models)
        report, events = await _turn(
            settings, follow, f"run-{run}-2", follows=f"run-{run}-1", models=models
        )
        started = _event(events, "followup_started")
        assert started.data.method == "model"
        assert started.data.overlap >= 0.25  # the lexical test alone would say "same"
        assert started.data.topic_shift is (not same)
        assert (started.data.reused_evidence > 0) is same
        assert report.followup is not None and report.followup.topic_shift is (not same)
        plans = [
            call[-1].text
            for call in models["planner"].calls  # type: ignore[attr-defined]
            if call[0].text.startswith("You plan research")
        ]
        # the planner sees the earlier question only when the topic continues
        assert (FIRST in plans[-1]) is same


async def test_a_question_the_thread_already_answered_is_not_researched_again(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", page_cache_ttl_s=0)
    first, _ = await _turn(settings, FIRST, "run-once")
    again, events = await _turn(settings, FIRST, "run-twice", follows="run-once")
    assert _event(events, "plan_ready").data.sub_questions == []
    assert not [e for e in events if e.type in ("search_completed", "source_fetched")]
    assert _event(events, "run_completed").data.fetches == 0
    assert set(again.cited_evidence_ids()) <= {item.id for item in first.evidence}
    assert again.cited_evidence_ids() and again.kind == first.kind


def _terse_script(same_topic: bool) -> Callable[[list[BaseMessage]], str]:
    """The research script, a model that calls the follow-up on (or off) the thread's
    topic, and an intake model that asks to clarify a terse question ("Why?")."""
    base = _topic_script(same_topic)

    def reply(messages: list[BaseMessage]) -> str:
        asks_intake = messages[0].text.startswith(intake.SYSTEM.splitlines()[0])
        if asks_intake and messages[-1].text.rstrip().endswith("Why?"):
            return json.dumps({"intent": "clarify", "reply": "Why what, exactly?"})
        return base(messages)

    return reply


async def test_a_followup_on_its_thread_is_not_asked_to_clarify(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    """A terse follow-up ("Why?") that its thread makes clear is researched, never sent
    back with a clarifying question; intake reads it with the thread's question. A
    follow-up on another topic may still be asked (seed 004)."""
    settings = offline_settings(offline_web, tmp_path, page_cache_ttl_s=0)
    models = scripted_models(_terse_script(same_topic=True))
    await _turn(settings, FIRST, "run-why-1", models=models)
    report, events = await _turn(settings, "Why?", "run-why-2", follows="run-why-1", models=models)
    assert not [e for e in events if e.type == "input_requested"]
    assert _event(events, "intake_decided").data.intent == "research"
    assert report.followup is not None and report.followup.topic_shift is False
    asked = [
        call[-1].text
        for call in models["planner"].calls  # type: ignore[attr-defined]
        if call[0].text.startswith(intake.SYSTEM.splitlines()[0])
    ]
    assert FIRST in asked[-1] and asked[-1].rstrip().endswith("Why?")

    # another thread, where the follow-up is judged a new topic: the question may be asked
    settings = offline_settings(offline_web, tmp_path / "shift", page_cache_ttl_s=0)
    models = scripted_models(_terse_script(same_topic=False))
    await _turn(settings, FIRST, "run-new-1", models=models)
    recipe = get_recipe("research")
    waits = await run_recipe(
        recipe,
        recipe.request("Why?", {"followup_of": "run-new-1"}),
        settings,
        run_id="run-new-2",
        models=models,
    )
    assert isinstance(waits, InputRequest) and waits.kind == "clarification"
    assert waits.question == "Why what, exactly?"
