"""Calls that would only wait are taken off the run's critical path (issue 16's measure):
intake and the planner are asked at once, reflect does not ask its model when the run
writes next whatever it says, and an audit with more sentences than the judge takes at
once judges a few a call instead of waiting for a second round. Real graph, search
adapter, fetcher and audit over the offline web; only the model's words are scripted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from langchain_core.messages import BaseMessage

from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import GateEvaluated, ModelCalled, Reflected
from deepresearch.recipes.research.stages import audit, intake, plan, reflect
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import assert_citations_hold, offline_settings

Reply = Callable[[list[BaseMessage]], str]


def _first(system: str) -> str:
    return system.splitlines()[0]


def _asked(model: ScriptedChatModel, system: str) -> list[list[BaseMessage]]:
    return [call for call in model.calls if str(call[0].content).startswith(_first(system))]


def _calls(events: list[RunEvent], stage: str) -> list[tuple[float, float]]:
    """(start, end) of each model call the stage made."""
    return [
        (e.ts.timestamp() - e.data.latency_s, e.ts.timestamp())
        for e in events
        if isinstance(e.data, ModelCalled) and e.stage == stage
    ]


async def test_the_planner_is_asked_while_intake_decides(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    model = ScriptedChatModel(research_script(), latency_s=0.3)
    events: list[RunEvent] = []
    report = await run_research(
        hotpot_question,
        offline_settings(offline_web, tmp_path),
        models=dict.fromkeys(ROLES, model),
        sinks=[events.append],
    )
    assert isinstance(report, Report) and report.kind == "synthesized"
    assert_citations_hold(report, offline_web)
    ((intake_start, intake_end),) = _calls(events, "intake")
    ((plan_start, plan_end),) = _calls(events, "plan")  # asked once, its draft used
    assert plan_start < intake_end and intake_start < plan_end  # at the same time
    assert len(_asked(model, plan.SYSTEM)) == 1
    ready = next(e.data for e in events if e.type == "plan_ready")
    assert not ready.fallback  # the model's plan, not the rules'


async def test_a_plan_drafted_for_chitchat_is_dropped_and_its_tokens_counted(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    research = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(_first(intake.SYSTEM)):
            return json.dumps({"intent": "chitchat", "reply": "Glad to help."})
        return research(messages)

    model = ScriptedChatModel(reply)
    events: list[RunEvent] = []
    # a question the rules pass on to the model, which calls it small talk
    answer = await run_research(
        "How lovely that the weather in Lisbon was so pleasant for us today",
        offline_settings(offline_web, tmp_path),
        models=dict.fromkeys(ROLES, model),
        sinks=[events.append],
    )
    assert isinstance(answer, Report) and answer.kind == "chitchat"
    assert not any(e.type in ("plan_ready", "wave_started") for e in events)
    assert len(_asked(model, plan.SYSTEM)) == 1  # drafted, then dropped
    spent = [e.data for e in events if isinstance(e.data, ModelCalled)]
    assert {e.stage for e in events if isinstance(e.data, ModelCalled)} == {"intake", "plan"}
    assert answer.usage.input_tokens == sum(call.input_tokens for call in spent)
    assert answer.usage.output_tokens == sum(call.output_tokens for call in spent)


async def test_reflect_asks_its_model_only_while_the_run_may_research_more(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    for name, extra, asked in (
        ("passes", {"depth": "standard"}, False),
        # the gate cannot pass: the model's follow-ups may fill the gaps
        ("fails", {"depth": "standard", "min_evidence": 60}, True),
    ):
        model = ScriptedChatModel(research_script())
        events: list[RunEvent] = []
        await run_research(
            hotpot_question,
            offline_settings(offline_web, tmp_path / name, **extra),
            models=dict.fromkeys(ROLES, model),
            sinks=[events.append],
        )
        gates = [e.data.status for e in events if isinstance(e.data, GateEvaluated)]
        routes = [e.data.route for e in events if isinstance(e.data, Reflected)]
        assert routes and gates
        if asked:
            assert "pass" not in gates and _asked(model, reflect.SYSTEM), name
        else:
            # the first wave passed and read enough: the run writes, no question asked
            assert gates == ["pass"] and routes == ["write"], name
            assert not _asked(model, reflect.SYSTEM), name


def _dropping_last_verdict(research: Reply) -> Reply:
    """The research script's judge, except that it leaves out the last sentence of every
    batch it is given."""

    def reply(messages: list[BaseMessage]) -> str:
        text = research(messages)
        if str(messages[0].content).startswith(_first(audit.BATCH_SYSTEM)):
            verdicts = json.loads(text)
            return json.dumps({"sentences": verdicts["sentences"][:-1]})
        return text

    return reply


async def test_an_audit_past_the_judges_slots_judges_a_few_sentences_a_call(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    reports = {}
    judged = 0
    for name, reply in (
        ("one a call", research_script()),
        ("batched", research_script()),
        ("batched, a verdict missing", _dropping_last_verdict(research_script())),
    ):
        model = ScriptedChatModel(reply)
        slots = 64 if name == "one a call" else 2
        report = await run_research(
            hotpot_question,
            offline_settings(offline_web, tmp_path / name, model_concurrency=slots),
            models=dict.fromkeys(ROLES, model),
        )
        assert isinstance(report, Report) and report.audit is not None
        batched = _asked(model, audit.BATCH_SYSTEM)
        single = _asked(model, audit.SYSTEM)
        if name == "one a call":
            assert not batched and len(single) > 2
            judged = len(single)  # (a sentence judged before is answered from the cache)
        else:
            # every sentence judged once, a few a call: fewer calls, so fewer rounds
            per_call = [str(call[-1].content).count("Cited passages of S") for call in batched]
            assert all(2 <= count <= 3 for count in per_call)
            assert len(batched) + len(single) < judged
        reports[name] = report
    one, batched, missing = (reports[name].audit for name in reports)
    assert one is not None and batched is not None and missing is not None
    # the same verdicts, whether a sentence had a call of its own or shared one
    assert (one.checked, one.supported, one.partial, one.unsupported, one.method) == (
        batched.checked,
        batched.supported,
        batched.partial,
        batched.unsupported,
        "judge",
    )
    # a sentence the judge did not answer for is checked by the deterministic checker
    assert missing.method == "mixed" and missing.checked == one.checked
