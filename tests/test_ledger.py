"""The run's ledger (``deepresearch/ledger.py``): every node's update carries the usage,
fetches and model errors so far, routing nodes keep their destinations, and a resumed
process continues counting from the checkpoint."""

from __future__ import annotations

from typing import Any, Literal, cast

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from deepresearch.context import RunContext, RunLedger
from deepresearch.ledger import entries, recorded, restore
from deepresearch.llm.gateway import Gateway
from deepresearch.models import Usage
from deepresearch.models.usage import ModelCall
from deepresearch.recipes.employer.graph import build_graph as build_employer_graph
from deepresearch.recipes.research.graph import build_graph
from deepresearch.recipes.research.state import RunState


class Run:
    """What ``recorded`` and ``restore`` use of a RunContext: its gateway and ledger."""

    def __init__(self) -> None:
        self.gateway = Gateway({}, model_names={}, timeout_s=1.0, max_retries=0)
        self.ledger = RunLedger()


def _run(context: Any) -> RunContext:
    return cast(RunContext, context)


async def route(state: RunState, runtime: Runtime[RunContext]) -> Command[Literal["b"]]:
    runtime.context.ledger.fetches += 3
    return Command(goto="b", update={"wave": 1})


async def finish(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    return {"warnings": ["done"]}


def _graph() -> Any:
    graph = StateGraph(RunState, context_schema=RunContext)
    graph.add_node("a", recorded(route, _run))
    graph.add_node("b", recorded(finish, _run))
    graph.add_edge(START, "a")
    graph.add_edge("b", END)
    return graph.compile()


async def test_every_update_carries_the_ledger_and_a_command_keeps_its_route() -> None:
    run = Run()
    run.gateway.usage.record(ModelCall(role="planner", stage="plan", model="m", input_tokens=7))
    run.gateway.errors.append("model m timed out")
    updates = [
        update
        async for update in _graph().astream(
            {"question": "q"}, context=cast(RunContext, run), stream_mode="updates"
        )
    ]
    first, second = updates[0]["a"], updates[1]["b"]
    assert first["wave"] == 1 and first["fetches"] == 3  # counted by the node itself
    assert first["usage"].input_tokens == 7 and first["model_errors"] == ["model m timed out"]
    assert second["warnings"] == ["done"] and second["fetches"] == 3
    # copies: a later call does not change what a checkpoint holds
    run.gateway.usage.record(ModelCall(role="planner", stage="plan", model="m", input_tokens=1))
    assert first["usage"].input_tokens == 7


def test_routing_nodes_keep_their_destinations() -> None:
    edges = {(e.source, e.target) for e in build_graph().get_graph().edges}
    assert {("intake", "plan"), ("intake", "respond")} <= edges
    assert {("reflect", "research"), ("reflect", "check_findings"), ("reflect", "abort")} <= edges
    assert {("check_findings", "write"), ("check_findings", "abort")} <= edges
    employer = {(e.source, e.target) for e in build_employer_graph().get_graph().edges}
    assert {("route", "deep_research"), ("route", "result")} <= employer


def test_restore_continues_from_the_checkpoint_once() -> None:
    usage = Usage()
    usage.record(ModelCall(role="writer", stage="write", model="m", input_tokens=5, ok=False))
    run = Run()
    run.gateway.errors.append("model m timed out")  # already seen by this process
    run.ledger.search_errors.append("exa: refused the key")
    values = {
        "usage": usage,
        "fetches": 4,
        "model_errors": ["model m timed out", "other"],
        "search_errors": ["exa: refused the key", "searxng: timed out"],
    }
    restore(cast(RunContext, run), values)
    ledger = entries(cast(RunContext, run))
    assert ledger["fetches"] == 4
    assert ledger["model_errors"] == ["model m timed out", "other"]
    assert ledger["search_errors"] == ["exa: refused the key", "searxng: timed out"]
    assert (ledger["usage"].calls, ledger["usage"].failed_calls) == (1, 1)
    restore(cast(RunContext, Run()), {})  # a checkpoint from before the ledger


async def test_a_node_must_return_an_update() -> None:
    async def nothing(state: RunState, runtime: Runtime[RunContext]) -> Any:
        return ["not", "an", "update"]

    runtime = cast(Runtime[RunContext], type("R", (), {"context": Run()})())
    with pytest.raises(TypeError, match="dict or a Command"):
        await recorded(nothing, _run)({}, runtime)
