"""The employer recipe as a LangGraph graph on the shared runner and checkpointer: one node
per phase of seed 000, its state checkpointed after every node, so a run killed at any
point resumes from its last completed phase. Routing comes from the nodes' ``Command``
return types; the logic is in ``nodes.py`` and the pure modules.

    connecting ─► deep_research ─► research_reranker ─► route ─► result ─► END
                        ▲                                 │
                        └──── ENHANCE_SEARCH (once) ──────┘
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from deepresearch.context import RunContext
from deepresearch.ledger import recorded
from deepresearch.recipes.employer import nodes
from deepresearch.recipes.employer.state import EmployerContext, EmployerRunState

_MODELS = "deepresearch.recipes.employer.models"
#: the types this graph's checkpoints may contain
CHECKPOINT_TYPES: list[tuple[str, str]] = [
    *(
        (_MODELS, name)
        for name in (
            "EmployerRequest",
            "Classification",
            "ProfileItem",
            "Phase2Output",
            "PrunedData",
            "IndustryInference",
            "CleanedData",
            "CompanyVerification",
            "ResearchRerankerOutput",
            "EmployerState",
            "StateChanges",
            "RoutingStep",
            "SearchResult",
            "Attempt",
            "SourceInfo",
            "EmployerResult",
        )
    ),
    ("deepresearch.models.source", "Source"),
    ("deepresearch.models.evidence", "Evidence"),
    ("deepresearch.models.evidence", "Verification"),
    ("deepresearch.models.usage", "Usage"),
    ("deepresearch.models.usage", "TokenCount"),
]


def build_graph(
    checkpointer: BaseCheckpointSaver[str] | None = None,
) -> CompiledStateGraph[EmployerRunState, EmployerContext, EmployerRunState, EmployerRunState]:
    graph = StateGraph(EmployerRunState, context_schema=EmployerContext)
    # every node records the run's ledger (usage, fetches, model errors) in its update
    graph.add_node(nodes.CONNECTING, recorded(nodes.connecting, _run))
    graph.add_node(nodes.RESEARCH, recorded(nodes.deep_research, _run))
    graph.add_node(nodes.RERANKER, recorded(nodes.research_reranker, _run))
    graph.add_node(nodes.ROUTE, recorded(nodes.route, _run))
    graph.add_node(nodes.RESULT, recorded(nodes.result, _run))
    graph.add_edge(START, nodes.CONNECTING)
    graph.add_edge(nodes.CONNECTING, nodes.RESEARCH)
    graph.add_edge(nodes.RESEARCH, nodes.RERANKER)
    graph.add_edge(nodes.RERANKER, nodes.ROUTE)
    graph.add_edge(nodes.RESULT, END)
    return graph.compile(checkpointer=checkpointer)


def _run(context: EmployerContext) -> RunContext:
    return context.run
