"""The quality gate node: evaluates the evidence after each wave (seed 004)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from deepresearch.context import RunContext
from deepresearch.core.gate import GateThresholds, evaluate_gate
from deepresearch.models.event_payloads import GateEvaluated, GateMinimums
from deepresearch.recipes.research.state import RunState

STAGE = "gate"


def thresholds_from(ctx: RunContext) -> GateThresholds:
    s = ctx.limits
    return GateThresholds(
        min_evidence=s.min_evidence,
        min_cited_evidence=s.min_cited_evidence,
        min_domains=s.min_domains,
        min_evidence_per_question=s.min_evidence_per_question,
    )


def _read(state: RunState) -> list[str]:
    """The text and title of every page the run read (a snippet stands in for a page it
    could not fetch: the search engine's words are still a sign of what exists)."""
    return [f"{source.title}\n{source.text}" for source in state.get("sources", {}).values()]


async def gate(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    result = evaluate_gate(
        state.get("evidence", []),
        state["sub_questions"],
        thresholds_from(ctx),
        question=state["question"],
        titles={sid: source.title for sid, source in state.get("sources", {}).items()},
        texts=_read(state),
        asked_for=state.get("asked_for", []),
        content={sid: source.content_quality for sid, source in state.get("sources", {}).items()},
    )
    ctx.bus.emit(
        GateEvaluated(
            status=result.status,
            reasons=list(result.reasons),
            evidence=result.evidence,
            cited_evidence=result.cited_evidence,
            domains=list(result.domains),
            weak_sub_questions=list(result.weak_sub_questions),
            gaps=list(result.gaps),
            thresholds=GateMinimums(
                min_evidence=ctx.limits.min_evidence,
                min_cited_evidence=ctx.limits.min_cited_evidence,
                min_domains=ctx.limits.min_domains,
            ),
        ),
        stage=STAGE,
        message=f"Quality gate: {result.status}"
        + (f" ({'; '.join(result.reasons)})" if result.reasons else ""),
    )
    return {"gate": result}
