"""A budget's decisions on a run's recording (issue 19): the gateway's guard keeps each
decision under the call's key (or the point a stage names), and a replay's guard answers
from them, not from its clock or spend, so the same calls start and the same are refused,
whatever order and speed the replay's calls come in. An attempt cut at its timeout is
told to the recording too."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence

from langchain_core.messages import BaseMessage

from deepresearch.core.budget import Limits
from deepresearch.llm.budget import BudgetGuard, Verdict
from deepresearch.llm.gateway import Gateway
from deepresearch.llm.invoke import call_key
from deepresearch.testing.scripted import ScriptedChatModel

REPLY = "x" * 400  # 100 tokens
PROMPT = "y" * 400  # 100 tokens in; with a reserve of 200 each call is held to 300


def gateway(model: ScriptedChatModel, guard: BudgetGuard) -> Gateway:
    return Gateway(
        {"summarizer": model},
        model_names={"summarizer": "scripted"},
        timeout_s=30.0,
        max_retries=0,
        budget=guard,
    )


def asked(model: ScriptedChatModel) -> set[str]:
    return {str(messages[-1].content) for messages in model.calls}


class Tape:
    """Decisions as a recording keeps them, served back per point, in order."""

    def __init__(self) -> None:
        self.made: dict[str, list[Verdict]] = defaultdict(list)
        self.served: dict[str, int] = defaultdict(int)

    def record(self, at: str, verdict: Verdict) -> None:
        self.made[at].append(verdict)

    def recorded(self, at: str) -> Verdict | None:
        if self.served[at] >= len(self.made[at]):
            return None
        self.served[at] += 1
        return self.made[at][self.served[at] - 1]


async def test_a_replayed_guard_lets_the_same_calls_start_whatever_their_order() -> None:
    tape = Tape()
    recorded = ScriptedChatModel(lambda _: REPLY, latency_s=0.05)
    guard = BudgetGuard(Limits(max_tokens=1_000), {}, output_reserve=200)
    guard.record = tape.record
    gw = gateway(recorded, guard)
    users = [f"{PROMPT}{i}" for i in range(8)]
    await asyncio.gather(*(gw.text("summarizer", system="", user=u, stage="s") for u in users))
    assert len(recorded.calls) == 3  # three ran at once; the fourth would pass 1,000
    # every call's decision is kept under its key, the refusals with what ended the run
    assert sum(len(v) for v in tape.made.values()) == 8
    key = call_key("scripted", recorded.calls[0])
    assert tape.made[f"call {key}"] == [Verdict()]
    refusals = [v for made in tape.made.values() for v in made if v.over]
    assert len(refusals) == 5 and {v.message for v in refusals} == {guard.message}
    assert refusals[0].spend == guard.ending_spend and guard.message.startswith("Budget")

    # the replay: calls one after another (live, four would fit: 3 x 200 spent + 300),
    # in the reverse order, with a clock long past any deadline: the tape decides
    replayed = ScriptedChatModel(lambda _: REPLY)
    again = BudgetGuard(Limits(max_tokens=1_000), {}, output_reserve=200, clock=lambda: 1e9)
    again.recorded = tape.recorded
    twin = gateway(replayed, again)
    for user in reversed(users):
        await twin.text("summarizer", system="", user=user, stage="s")
    assert asked(replayed) == asked(recorded)
    assert again.ended_by == "tokens" and again.message == guard.message
    assert twin.errors == gw.errors
    assert again.timeout(30.0) == 30.0  # the replay's clock cuts nothing


async def test_a_stage_point_and_a_missing_decision() -> None:
    tape = Tape()
    tape.record("reflect wave 1", Verdict())
    tape.record("reflect wave 1", Verdict("time", "Budget reached: the time budget", {}))
    guard = BudgetGuard(Limits(max_time=1.0), {}, clock=lambda: 0.0)  # live: never over
    guard.recorded = tape.recorded
    exhausted: list[str] = []
    guard.on_exhausted = lambda name, message, spend: exhausted.append(name)
    gw = gateway(ScriptedChatModel(lambda _: REPLY), guard)
    assert guard.check(gw.usage, at="reflect wave 1") is None
    assert guard.check(gw.usage, at="reflect wave 1") == "time"
    assert exhausted == ["time"] and gw.errors == ["Budget reached: the time budget"]
    # a point the recording never reached: refused (the replay reports the miss)
    model = ScriptedChatModel(lambda _: REPLY)
    assert guard.check(gw.usage, at="fetch https://example.org/") == "time"
    assert await gateway(model, guard).text("summarizer", system="", user="q", stage="s") is None
    assert model.calls == []


async def test_an_attempt_cut_at_its_timeout_is_told_with_its_messages() -> None:
    cut: list[tuple[str, Sequence[BaseMessage]]] = []
    model = ScriptedChatModel(lambda _: REPLY, latency_s=5.0)
    gw = gateway(model, BudgetGuard(Limits(max_time=0.2), {}))
    gw.on_timeout = lambda name, messages: cut.append((name, messages))
    assert await gw.text("summarizer", system="", user="q", stage="s") is None
    assert [(name, call_key(name, messages)) for name, messages in cut] == [
        ("scripted", call_key("scripted", model.calls[0]))
    ]
