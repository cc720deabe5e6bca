"""The one run path, wired (``followup`` first: a no-op unless the run follows up another). No logic lives here: routing comes from the stages' Command
return types and the static edges below.

    intake ─► respond ──────────────────────────────────────────────────┐ (chitchat, refusal)
       ├────► clarify (a pause: the person answers) ─► plan             │
       └────► plan ─► [review_plan (a pause, --review-plan)] ─► library ─► research ─► gate ─► reflect ─► research (next wave)  │
               │                             ├──► check_findings ─► [review_findings] ─► write ─► audit ─► [review_report] ─► figures ─► evaluate ─► END
               │                             │          │                  └──► research (a gap: one more wave)
               │                             │          └──► abort ─────┘
               │                             └──► abort ────────────────┘
               └──► answer (--search none: the model's knowledge) ─► audit
                       └──► abort (no answer)

``library`` looks in the owner's library first (``stages/library.py``): verified quotes
of earlier runs, their pages reused or fetched again by age; a no-op when it is empty or
off (``--no-library``).

``review_findings`` (a pause, ``--review-findings``) shows the verified findings before
writing: the person drops some, or names a gap that one more wave researches; reflect
then sends the run to writing, and the review is not asked again. ``review_report`` (a
pause, ``--review-report``) shows the audited report: approved, it goes on to figures and evaluate;
edited, ``audit_edits`` audits the new words; with feedback, ``write`` rewrites it once
and the audit routes on without asking again.

The plan stage convenes the council (``stages/council.py``) when it is on; figures places
figures from the cited pages in a research report (none with ``images`` off); evaluate
does nothing unless ``evaluate`` is set.
"""

from __future__ import annotations

import functools

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from deepresearch.context import RunContext
from deepresearch.ledger import recorded
from deepresearch.recipes.research.stages.answer import answer
from deepresearch.recipes.research.stages.audit import audit, audit_edits
from deepresearch.recipes.research.stages.check import check_findings
from deepresearch.recipes.research.stages.evaluate import evaluate
from deepresearch.recipes.research.stages.figures import figures
from deepresearch.recipes.research.stages.finish import abort, respond
from deepresearch.recipes.research.stages.followup import followup
from deepresearch.recipes.research.stages.gate import gate
from deepresearch.recipes.research.stages.intake import intake
from deepresearch.recipes.research.stages.library import library
from deepresearch.recipes.research.stages.pause import (
    clarify,
    review_findings,
    review_plan,
    review_report,
)
from deepresearch.recipes.research.stages.plan import plan
from deepresearch.recipes.research.stages.reflect import reflect
from deepresearch.recipes.research.stages.research import research
from deepresearch.recipes.research.stages.write import write
from deepresearch.recipes.research.state import RunState

#: the types this graph's checkpoints may contain (the serializer refuses anything that no
#: recipe lists: ``recipes.registry.checkpoint_types``)
CHECKPOINT_TYPES: list[tuple[str, str]] = [
    ("deepresearch.models.plan", "Plan"),
    ("deepresearch.models.plan", "SubQuestion"),
    ("deepresearch.models.source", "Source"),
    ("deepresearch.models.evidence", "Evidence"),
    ("deepresearch.models.evidence", "Verification"),
    ("deepresearch.models.report", "Report"),
    ("deepresearch.models.report", "Section"),
    ("deepresearch.models.report", "Paragraph"),
    ("deepresearch.models.report", "Sentence"),
    ("deepresearch.models.report", "SourceRef"),
    ("deepresearch.models.report", "Audit"),
    ("deepresearch.models.claims", "Claim"),
    ("deepresearch.models.scores", "SourceScores"),
    ("deepresearch.models.claims", "ClaimLedger"),
    ("deepresearch.models.claims", "ExtractedClaims"),
    ("deepresearch.models.claims", "ExtractedClaim"),
    ("deepresearch.models.usage", "Usage"),
    ("deepresearch.models.usage", "TokenCount"),
    ("deepresearch.core.gate", "GateResult"),
    ("deepresearch.models.council", "CouncilResult"),
    ("deepresearch.models.council", "CouncilProposal"),
    ("deepresearch.models.council", "CouncilVote"),
    ("deepresearch.models.council", "CouncilRevision"),
    ("deepresearch.models.findings", "FindingCheck"),
    ("deepresearch.models.evaluation", "EvalResult"),
    ("deepresearch.models.evaluation", "DimensionScore"),
    ("deepresearch.models.thread", "Thread"),
    ("deepresearch.models.thread", "Turn"),
    ("deepresearch.models.thread", "FollowupInfo"),
    ("deepresearch.models.library", "LibraryReuse"),
    ("deepresearch.models.library", "ReusedQuote"),
    ("deepresearch.models.library", "DroppedQuote"),
    ("deepresearch.models.figures", "PageFigure"),
    ("deepresearch.models.figures", "ReportFigure"),
]


def build_graph(
    checkpointer: BaseCheckpointSaver[str] | None = None,
) -> CompiledStateGraph[RunState, RunContext, RunState, RunState]:
    """The graph with ``checkpointer``: a copy of the one compiled graph (LangGraph's own
    ``copy``, as its ``with_config`` makes). Compiling reads every node's code and type
    hints, about 50 ms of CPU, and a service reads a finished job's thread through a graph
    on every ``GET`` of it: compiled each time, that blocked the event loop under load."""
    return _compiled().copy(update={"checkpointer": checkpointer})


@functools.cache
def _compiled() -> CompiledStateGraph[RunState, RunContext, RunState, RunState]:
    graph = StateGraph(RunState, context_schema=RunContext)
    # every node records the run's ledger (usage, fetches, model errors) in its update
    graph.add_node("followup", recorded(followup, _run))
    graph.add_node("intake", recorded(intake, _run))
    graph.add_node("respond", recorded(respond, _run))
    graph.add_node("clarify", recorded(clarify, _run))
    graph.add_node("plan", recorded(plan, _run))
    graph.add_node("review_plan", recorded(review_plan, _run))
    graph.add_node("library", recorded(library, _run))
    graph.add_node("research", recorded(research, _run))
    graph.add_node("gate", recorded(gate, _run))
    graph.add_node("reflect", recorded(reflect, _run))
    graph.add_node("answer", recorded(answer, _run))
    graph.add_node("check_findings", recorded(check_findings, _run))
    graph.add_node("review_findings", recorded(review_findings, _run))
    graph.add_node("write", recorded(write, _run))
    graph.add_node("abort", recorded(abort, _run))
    graph.add_node("audit", recorded(audit, _run))
    graph.add_node("review_report", recorded(review_report, _run))
    graph.add_node("audit_edits", recorded(audit_edits, _run))
    graph.add_node("figures", recorded(figures, _run))
    graph.add_node("evaluate", recorded(evaluate, _run))
    graph.add_edge(START, "followup")  # a no-op unless the run follows up another
    graph.add_edge("followup", "intake")
    graph.add_edge("library", "research")  # the owner's library first (a no-op when empty)
    graph.add_edge("research", "gate")
    graph.add_edge("gate", "reflect")
    graph.add_edge("write", "audit")
    graph.add_edge("abort", "audit")
    graph.add_edge("respond", "audit")
    graph.add_edge("audit_edits", "figures")
    graph.add_edge("figures", "evaluate")
    graph.add_edge("evaluate", END)
    return graph.compile()


def _run(context: RunContext) -> RunContext:
    return context
