"""The research graph is compiled once per process (issue 27): compiling walks every node's
code, about 50 ms of CPU, and the service read a finished job's thread through a freshly
compiled graph on every GET of it. Each caller gets a copy holding its own checkpointer."""

from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver

from deepresearch.recipes.research.graph import build_graph


def test_each_copy_has_its_checkpointer_and_shares_the_one_compiled_graph() -> None:
    first, second = InMemorySaver(), InMemorySaver()
    one, two, bare = build_graph(first), build_graph(second), build_graph()
    assert (one.checkpointer, two.checkpointer, bare.checkpointer) == (first, second, None)
    # the nodes were compiled once: every copy runs the same ones
    assert set(one.nodes) >= {"intake", "plan", "research", "write", "audit"}
    for name, node in one.nodes.items():
        assert two.nodes[name] is node and bare.nodes[name] is node
