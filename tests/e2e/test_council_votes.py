"""The council's revision loop (issue 28, seed 002's validate_brief): once the council has
its plan, the members vote approve / revise / reject with feedback; below the consensus
threshold the planner revises the plan with that feedback and they vote again, up to
``council_max_revisions`` times. Every vote and revision is an event, and the plan review
shows them with the plan's scope, evidence strategy and output format (seed 004). Only
the model's words are scripted; the run is real."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from langchain_core.messages import BaseMessage

from deepresearch.models import Report, RunEvent
from deepresearch.models.event_checks import CouncilReviewed, CouncilRevised, CouncilVoted
from deepresearch.models.event_payloads import PlanReady
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.research.stages import council, council_review, plan, write
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..event_schema import assert_events_match_schema
from .helpers import offline_settings

T = TypeVar("T")

FIRST = ["Where was the first film shot?", "Who directed the first film?"]

#: (member's persona marker, plan text) -> (verdict, feedback)
Voting = Callable[[str, str], tuple[str, str]]


def _member(system: str) -> str:
    for name, persona in council.PERSONAS[1:]:
        if persona.strip() in system:
            return name
    return "planner"


def _revised(number: int) -> list[str]:
    return [f"Which studio made the film, revision {number}?", f"Who starred, revision {number}?"]


def _voting_model(voting: Voting) -> ScriptedChatModel:
    """Every member proposes the same plan (the judge agrees), then votes by ``voting``;
    the planner's revision n proposes ``_revised(n)``."""
    research = research_script()
    revisions = [0]

    def reply(messages: list[BaseMessage]) -> str:
        system, user = str(messages[0].content), str(messages[-1].content)
        if system.startswith(plan.SYSTEM.splitlines()[0]):
            if "Their feedback:" in user:  # the revision prompt
                revisions[0] += 1
                subs = _revised(revisions[0])
                brief = f"The revised brief {revisions[0]}."
            else:
                subs, brief = FIRST, "The first brief."
            items = [{"question": q, "queries": [q.rstrip("?")]} for q in subs]
            return json.dumps(
                {
                    "brief": brief,
                    "sub_questions": items,
                    "scope": "The film's making, not its reception.",
                    "evidence_strategy": "Studio records first, then film histories.",
                    "output_format": "A short report with a table of the cast.",
                }
            )
        if system.startswith(council.JUDGE_SYSTEM.splitlines()[0]):
            return json.dumps({"score": 0.9, "reason": "it covers the question"})
        if system.startswith(council_review.VOTE_SYSTEM.splitlines()[0]):
            verdict, feedback = voting(_member(system), user)
            return json.dumps({"verdict": verdict, "feedback": feedback})
        return research(messages)

    return ScriptedChatModel(reply)


async def _run(
    web: OfflineWeb, question: str, tmp_path: Path, voting: Voting, **extra: object
) -> tuple[Report | InputRequest, list[RunEvent], ScriptedChatModel]:
    model = _voting_model(voting)
    events: list[RunEvent] = []
    settings = offline_settings(web, tmp_path, max_sub_questions=5, council=True, **extra)
    result = await run_research(
        question, settings, models=dict.fromkeys(ROLES, model), sinks=[events.append]
    )
    assert result is not None
    return result, events, model


def _of(events: list[RunEvent], kind: type[T]) -> list[T]:
    return [e.data for e in events if isinstance(e.data, kind)]


def _until_revised(member: str, shown: str) -> tuple[str, str]:
    """The sceptic rejects and the specialist asks for a revision of the first plan; every
    member approves a revised one."""
    if "revision 1" in shown:
        return "approve", "Now it asks what matters."
    if member == "planner (sceptic)":
        return "reject", "It never asks which studio made the film."
    if member == "planner (specialist)":
        return "revise", "Ask who starred in it."
    return "approve", "Good enough."


async def test_votes_below_the_consensus_make_the_planner_revise(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    report, events, model = await _run(offline_web, hotpot_question, tmp_path, _until_revised)
    assert isinstance(report, Report)
    voted = _of(events, CouncilVoted)
    # every vote of both rounds is an event: member, verdict and feedback
    assert [(v.round, v.member, v.verdict) for v in voted] == [
        (0, "planner", "approve"),
        (0, "planner (specialist)", "revise"),
        (0, "planner (sceptic)", "reject"),
        (1, "planner", "approve"),
        (1, "planner (specialist)", "approve"),
        (1, "planner (sceptic)", "approve"),
    ]
    assert voted[2].feedback == "It never asks which studio made the film."
    # round 0: (1 + 0.5 + 0) / 3 = 0.5 < 0.7, a revision; round 1: all approve
    reviewed = _of(events, CouncilReviewed)
    assert [(r.round, r.outcome, r.consensus, r.votes) for r in reviewed] == [
        (0, "revise", 0.5, 3),
        (1, "approved", 1.0, 3),
    ]
    (revised,) = _of(events, CouncilRevised)
    assert revised.round == 1 and revised.sub_questions == _revised(1)
    # the planner was given every member's feedback that was not a bare approval
    assert "It never asks which studio made the film." in revised.feedback
    assert "Ask who starred in it." in revised.feedback
    (ready,) = _of(events, PlanReady)
    assert [sq.text for sq in ready.sub_questions][1:] == _revised(1)
    assert ready.brief == "The revised brief 1."
    assert ready.scope == "The film's making, not its reception."  # seed 004, in the event
    assert ready.output_format == "A short report with a table of the cast."
    assert {"council_voted", "council_reviewed", "council_revised"} <= (
        assert_events_match_schema(events)
    )
    # proposals 3, votes 3 + 3, one revision and the judge's score, all counted under the
    # council (the three proposals are the same plan: the cache scores it once)
    judged = [c for c in model.calls if str(c[0].content).startswith(council.JUDGE_SYSTEM[:40])]
    assert len(judged) == 1
    assert report.usage.by_stage["council"].calls == 3 + 1 + 3 + 1 + 3
    # seed 004: the writer is given the plan's scope and output format
    (written,) = [c for c in model.calls if str(c[0].content).startswith(write.SYSTEM[:40])]
    asked = str(written[-1].content)
    assert "Scope: The film's making, not its reception." in asked
    assert "Output format: A short report with a table of the cast." in asked


async def test_the_revisions_stop_at_the_maximum(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    def never(member: str, shown: str) -> tuple[str, str]:
        return "reject", "Still off the question."

    report, events, _ = await _run(
        offline_web, hotpot_question, tmp_path, never, council_max_revisions=2
    )
    assert isinstance(report, Report)
    reviewed = _of(events, CouncilReviewed)
    assert [(r.round, r.outcome) for r in reviewed] == [
        (0, "revise"),
        (1, "revise"),
        (2, "stopped"),
    ]
    assert reviewed[-1].note == "2 revision(s) made, none left"
    assert [r.round for r in _of(events, CouncilRevised)] == [1, 2]
    assert len(_of(events, CouncilVoted)) == 9  # three rounds of three
    (ready,) = _of(events, PlanReady)  # the last revision stands
    assert [sq.text for sq in ready.sub_questions][1:] == _revised(2)


async def test_no_usable_vote_leaves_the_plan_as_decided_and_says_so(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    def abstain(member: str, shown: str) -> tuple[str, str]:
        return "maybe", ""  # not a verdict the schema accepts: no vote

    _, events, _ = await _run(offline_web, hotpot_question, tmp_path, abstain)
    assert [v.verdict for v in _of(events, CouncilVoted)] == [None, None, None]
    (reviewed,) = _of(events, CouncilReviewed)
    assert (reviewed.outcome, reviewed.consensus) == ("no_vote", None)
    assert reviewed.note == "0 vote(s) cast, a vote needs 2"
    assert not _of(events, CouncilRevised)
    (ready,) = _of(events, PlanReady)
    assert [sq.text for sq in ready.sub_questions][1:] == FIRST


async def test_the_plan_review_shows_the_outline_and_the_councils_votes(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    request, events, _ = await _run(
        offline_web, hotpot_question, tmp_path, _until_revised, review_plan=True
    )
    assert isinstance(request, InputRequest) and request.kind == "plan"
    # seed 004's research plan: scope, evidence strategy and output format
    assert request.scope == "The film's making, not its reception."
    assert request.evidence_strategy == "Studio records first, then film histories."
    assert request.output_format == "A short report with a table of the cast."
    # the council's votes and revision, as lines a person reads
    assert request.council[0].startswith("Council: best (consensus 0.90")
    assert request.council[1].startswith("Vote 0: planner approve: Good enough.;")
    assert (
        "planner (sceptic) reject: It never asks which studio made the film."
        in (request.council[1])
    )
    assert request.council[2] == "Revision 1: the planner revised the plan"
    assert request.council[-1] == "Review: approved"
    # and the input_requested event carries them for every front end
    (asked,) = [e.data for e in events if e.type == "input_requested"]
    assert asked.scope == request.scope  # type: ignore[union-attr]
    assert asked.council == request.council  # type: ignore[union-attr]


async def test_without_a_model_the_plan_still_records_its_outline(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", review_plan=True)
    events: list[RunEvent] = []
    request = await run_research(
        hotpot_question, settings, run_id="outline-1", sinks=[events.append]
    )
    assert isinstance(request, InputRequest) and request.kind == "plan"
    (ready,) = _of(events, PlanReady)  # recorded in the plan's event too
    assert (ready.scope, ready.evidence_strategy, ready.output_format) == (
        request.scope,
        request.evidence_strategy,
        request.output_format,
    )
    assert request.scope.startswith(f"{len(request.sub_questions)} sub-question(s): ")
    assert request.evidence_strategy.startswith("Web search, ")
    assert request.output_format.startswith("A cited report")
    assert request.council == []  # no council without a model
