"""The two pauses a person answers (issue 15), each a LangGraph interrupt in a node of its
own: the run is checkpointed there and the runner returns an ``InputRequest``; the answer
(``Command(resume=...)``) continues the same run. LangGraph runs an interrupted node again
from its start on resume, so these nodes do nothing before ``interrupt`` but read state.

* ``clarify``: intake's clarifying question; the answer goes to planning with the
  question (``core.review.clarified``) and into the brief.
* ``review_plan`` (``review_plan`` on): the brief and sub-questions; the person approves
  or edits them (``core.review.edited_plan``), and the edited plan is what is researched.
"""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from deepresearch.context import RunContext
from deepresearch.core.review import check_answer, check_plan_reply, edited_plan
from deepresearch.models.event_pauses import InputReceived
from deepresearch.models.event_payloads import PlannedUnit
from deepresearch.state import RunState


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
) -> Command[Literal["research", "answer"]]:
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
    return Command(goto=after_plan(ctx), update=update)


def after_plan(ctx: RunContext) -> Literal["research", "answer"]:
    """Research, or, when nothing can be searched and a writer is there, the model's
    answer from what it knows (labelled as such); without a writer the research runs as
    ever and ends in the honest abort report."""
    unsearched = ctx.search.name == "none" and ctx.gateway.has_model("writer")
    return "answer" if unsearched else "research"
