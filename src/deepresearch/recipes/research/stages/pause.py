"""The pauses a person answers (issue 15), each a LangGraph interrupt in a node of its
own: the run is checkpointed there and the runner returns an ``InputRequest``; the answer
(``Command(resume=...)``) continues the same run. LangGraph runs an interrupted node again
from its start on resume, so these nodes do nothing before ``interrupt`` but read state.

* ``clarify``: intake's clarifying question; the answer goes to planning with the
  question (``core.review.clarified``) and into the brief.
* ``review_plan`` (``review_plan`` on): the brief and sub-questions; the person approves
  or edits them (``core.review.edited_plan``), and the edited plan is what is researched.
* ``review_findings`` (``review_findings`` on): the verified findings, after the findings
  check and before writing; the person approves them, drops some (they never reach the
  writer) or names a gap, researched in one more wave before the run writes without
  asking again (``core.findings_review``).
* ``review_report`` (``review_report`` on): the finished, audited report's sentences; the
  person approves it, edits sentences (``audit_edits`` audits the new words against their
  citations) or gives feedback for one rewrite by the writer (``write`` again, then the
  audit; not asked again). Feedback without a writer model is refused when the reply is
  checked (``core.report_review``): nothing is applied and the run keeps waiting.
"""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from deepresearch.context import RunContext
from deepresearch.core.council import council_notes
from deepresearch.core.findings_review import (
    check_findings_reply,
    gap_sub_question,
    shown_findings,
    without_dropped,
)
from deepresearch.core.report_review import check_report_reply, shown_sentences
from deepresearch.core.review import check_answer, check_plan_reply, edited_plan
from deepresearch.models.event_pauses import InputReceived
from deepresearch.models.event_payloads import PlannedUnit
from deepresearch.recipes.research.state import RunState


async def clarify(state: RunState, runtime: Runtime[RunContext]) -> Command[Literal["plan"]]:
    asked = state.get("intent_reply", "")
    answer = check_answer(interrupt({"kind": "clarification", "question": asked}))
    runtime.context.bus.emit(
        InputReceived(kind="clarification", question=asked, answer=answer),
        stage="clarify",
        message="Answer received",
    )
    update: RunState = {
        "intent": "research",
        "clarification": {"question": asked, "answer": answer},
    }
    return Command(goto="plan", update=update)


async def review_plan(
    state: RunState, runtime: Runtime[RunContext]
) -> Command[Literal["library", "answer"]]:
    ctx = runtime.context
    plan = state["plan"]
    decision = check_plan_reply(
        interrupt(
            {
                "kind": "plan",
                "brief": plan.brief,
                "sub_questions": [
                    {"id": sq.id, "text": sq.text, "queries": list(sq.queries)}
                    for sq in plan.sub_questions
                ],
                "scope": plan.scope,
                "evidence_strategy": plan.evidence_strategy,
                "output_format": plan.output_format,
                "council": council_notes(state["council"]) if "council" in state else [],
                "presearch": list(plan.presearch),
            }
        )
    )
    reviewed, sub_questions = edited_plan(
        plan,
        decision,
        per_question=ctx.limits.queries_per_question,
        operators=ctx.search.supports_operators,
    )
    ctx.bus.emit(
        InputReceived(
            kind="plan",
            action=decision.action,
            brief=reviewed.brief,
            sub_questions=[
                PlannedUnit(id=sq.id, text=sq.text, queries=list(sq.queries))
                for sq in sub_questions
            ],
        ),
        stage="review_plan",
        message="Plan approved" if decision.action == "approve" else "Plan edited",
    )
    update: RunState = {"plan": reviewed, "sub_questions": sub_questions}
    if decision.sub_questions:
        update["asked_for"] = [*state.get("asked_for", []), *decision.sub_questions]
    return Command(goto=after_plan(ctx), update=update)


async def review_findings(
    state: RunState, runtime: Runtime[RunContext]
) -> Command[Literal["write", "research"]]:
    ctx = runtime.context
    shown = shown_findings(state.get("evidence", []), state.get("sources", {}))
    decision = check_findings_reply(
        interrupt({"kind": "findings", "findings": [item.model_dump() for item in shown]}),
        [item.id for item in shown],
    )
    dropped = list(decision.drop or [])
    evidence, checks = without_dropped(
        state.get("evidence", []), state.get("finding_checks", []), dropped
    )
    review: dict[str, object] = {"action": decision.action, "dropped": dropped}
    update: RunState = {"evidence": evidence, "finding_checks": checks}
    gap_units: list[PlannedUnit] = []
    if decision.gap is not None:
        unit = gap_sub_question(
            decision.gap,
            state["sub_questions"],
            wave=state.get("wave", 0),
            per_question=ctx.limits.queries_per_question,
            operators=ctx.search.supports_operators,
        )
        review.update(gap=decision.gap, gap_id=unit.id)
        update["sub_questions"] = [*state["sub_questions"], unit]
        update["asked_for"] = [*state.get("asked_for", []), decision.gap]
        gap_units = [PlannedUnit(id=unit.id, text=unit.text, queries=list(unit.queries))]
    update["findings_review"] = review
    ctx.bus.emit(
        InputReceived(
            kind="findings",
            action=decision.action,
            dropped=dropped,
            gap=decision.gap,
            sub_questions=gap_units or None,
        ),
        stage="review_findings",
        message=_reviewed(len(shown), dropped, decision.gap),
    )
    # a gap: one more wave researches it (``core.findings_review.wave_units``), then
    # reflect sends the run to writing without asking again
    return Command(goto="research" if decision.gap is not None else "write", update=update)


async def review_report(
    state: RunState, runtime: Runtime[RunContext]
) -> Command[Literal["audit_edits", "write", "figures"]]:
    ctx = runtime.context
    report = state["report"]
    shown = shown_sentences(report)
    rewrite = ctx.gateway.has_model("writer")
    decision = check_report_reply(
        interrupt(
            {
                "kind": "report",
                "title": report.title,
                "sentences": [item.model_dump() for item in shown],
                "rewrite": rewrite,
            }
        ),
        {item.id: item.text for item in shown},
        rewrite=rewrite,
    )
    edited = list(decision.sentences or {})
    ctx.bus.emit(
        InputReceived(
            kind="report",
            action=decision.action,
            edited=edited or None,
            feedback=decision.feedback,
        ),
        stage="review_report",
        message={
            "approve": "Report approved",
            "edit": f"Report edited: {len(edited)} sentence(s)",
            "feedback": "Feedback received: the writer rewrites the report once",
        }[decision.action],
    )
    update: RunState = {"report_review": decision.model_dump(exclude_none=True)}
    goto: Literal["audit_edits", "write", "figures"] = (
        "audit_edits"
        if decision.action == "edit"
        else "write"
        if decision.action == "feedback"
        else "figures"
    )
    return Command(goto=goto, update=update)


def _reviewed(shown: int, dropped: list[str], gap: str | None) -> str:
    kept = f"Findings reviewed: {shown - len(dropped)} of {shown} kept"
    return kept + (f"; researching the gap: {gap}" if gap else "")


def after_plan(ctx: RunContext) -> Literal["library", "answer"]:
    """Research (the owner's library first), or, when nothing can be searched and a
    writer is there, the model's answer from what it knows (labelled as such); without a
    writer the research runs as ever and ends in the honest abort report."""
    unsearched = ctx.search.name == "none" and ctx.gateway.has_model("writer")
    return "answer" if unsearched else "library"
