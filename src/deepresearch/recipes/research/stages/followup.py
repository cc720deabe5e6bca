"""Follow-up: the first stage of a run that follows up an earlier one (``followup_of``);
a no-op for any other run. It reads the run it follows from the checkpoint store
(``RunContext.threads``: ``threads.StoredThreads``, which the research recipe's context
sets, or a replay's recorded parent), decides whether
the follow-up is on the thread's topic (one small model call through the gateway, else
``core.thread.lexical_topic``), and keeps in state what the turn reuses
(``core.thread.carry_over``: pages read, verified evidence, the earlier sub-questions as
done), nothing after a topic shift. The plan stage reads it
(``plan_context``, ``carried``). The turn is recorded in the thread's root, so the
thread's turns can be listed from any of its runs."""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.text import clip
from deepresearch.core.thread import (
    MAX_FINDINGS,
    TopicDecision,
    carry_over,
    lexical_topic,
    next_sub_question_number,
    thread_context,
    uncovered,
)
from deepresearch.errors import RunError
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.models import SubQuestion
from deepresearch.models.event_checks import FollowupStarted
from deepresearch.models.thread import FollowupInfo, ParentTurn, Thread, Turn
from deepresearch.recipes.research.state import RunState

STAGE = "followup"

TOPIC_SYSTEM = f"""You decide whether a follow-up question continues a research thread.
{DATA_RULE}
Answer same_topic true when the follow-up asks more about the thread's subject (another
aspect, a detail, a comparison involving it, a question that refers back to it), false when
it asks about an unrelated subject."""


class TopicCheck(BaseModel):
    same_topic: bool
    reason: str = Field(default="", description="one short sentence")


async def followup(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    parent_id = state.get("followup_of")
    if not parent_id:
        return {}
    ctx = runtime.context
    threads = ctx.threads
    if threads is None:  # the research recipe's context sets it (``recipes.research``)
        raise RunError("this run has no thread store to read the run it follows up")
    question = state["question"]
    parent = await threads.parent(parent_id)
    root = parent.root
    turn = parent.turn + 1
    earlier = parent.thread
    questions = [*(earlier.questions if earlier is not None else []), parent.question]
    findings = _findings(parent)
    decision, method = await _decide(ctx, question, questions, findings)
    carried = carry_over(
        {} if decision.shift else parent.sources,
        [] if decision.shift else parent.evidence,
        [] if decision.shift else parent.sub_questions,
    )
    info = FollowupInfo(
        root=root,
        follows=parent_id,
        turn=turn,
        topic_shift=decision.shift,
        method=method,
        reused_sources=len(carried.sources),
        reused_evidence=len(carried.evidence),
    )
    await threads.record_turn(
        root,
        Turn(
            run_id=state["run_id"],
            turn=turn,
            question=question,
            follows=parent_id,
            topic_shift=decision.shift,
        ),
    )
    shift = "a new topic: researched afresh" if decision.shift else "on the thread's topic"
    ctx.bus.emit(
        FollowupStarted(
            root=root,
            follows=parent_id,
            turn=turn,
            topic_shift=decision.shift,
            method=method,
            overlap=round(decision.overlap, 3),
            reason=decision.reason,
            reused_sources=info.reused_sources,
            reused_evidence=info.reused_evidence,
            dropped_evidence=carried.dropped,
        ),
        stage=STAGE,
        message=f"Follow-up {turn} of thread {root}: {shift}",
    )
    return {
        "thread": Thread(
            info=info,
            questions=questions,
            findings=findings,
            reason=decision.reason,
            overlap=decision.overlap,
            sources=carried.sources,
            evidence=carried.evidence,
            sub_questions=carried.sub_questions,
        )
    }


def _findings(parent: ParentTurn) -> list[str]:
    """The earlier turn's verified claims, its report's order first."""
    evidence = [item for item in parent.evidence if item.verified]
    cited = set(parent.cited)
    ordered = sorted(evidence, key=lambda item: item.id not in cited)
    old = parent.thread.findings if parent.thread is not None else []
    return list(dict.fromkeys([*(item.claim for item in ordered), *old]))[: MAX_FINDINGS * 2]


async def _decide(
    ctx: RunContext, question: str, questions: list[str], findings: list[str]
) -> tuple[TopicDecision, str]:
    """The model's decision (one small call) when there is a model, else the lexical one;
    a model that gives no usable answer leaves it to the lexical one."""
    lexical = lexical_topic(question, [*questions, *findings])
    if not ctx.gateway.has_model("planner"):
        return lexical, "lexical"
    user = (
        "Earlier questions:\n"
        + "\n".join(f"- {clip(q, 300)}" for q in questions)
        + "\nWhat they found:\n"
        + "\n".join(data_block("finding", clip(f, 200)) for f in findings[:MAX_FINDINGS])
        + f"\n\nFollow-up question:\n{question}"
    )
    check = await ctx.gateway.structured(
        "planner", TopicCheck, system=TOPIC_SYSTEM, user=user, stage=STAGE
    )
    if check is None:
        return lexical, "lexical"
    reason = clip(check.reason.strip(), 300) or ("same topic" if check.same_topic else "new topic")
    return TopicDecision(not check.same_topic, lexical.overlap, reason), "model"


# read by the plan stage -------------------------------------------------------------


def plan_context(state: RunState) -> str:
    """The earlier turns for the planner's prompt ("" unless this turn continues a topic)."""
    thread = state.get("thread")
    if thread is None or thread.info.topic_shift:
        return ""
    return "\n\n" + thread_context(thread.questions, thread.findings)


def new_sub_questions(state: RunState, texts: list[str]) -> tuple[list[str], int]:
    """The planned texts an earlier turn did not research, and the first free number for
    their ids."""
    thread = state.get("thread")
    if thread is None:
        return texts, 1
    covered = [*thread.questions, *(sq.text for sq in thread.sub_questions)]
    return uncovered(texts, covered), next_sub_question_number(thread.sub_questions)


def carried(state: RunState, planned: list[SubQuestion]) -> RunState:
    """The plan's update of sources, evidence and sub-questions: this turn's plan after
    what the thread carries over (nothing for a first turn or a topic shift)."""
    thread = state.get("thread")
    if thread is None:
        return {"sources": {}, "evidence": [], "sub_questions": planned}
    return {
        "sources": dict(thread.sources),
        "evidence": list(thread.evidence),
        "sub_questions": [*thread.sub_questions, *planned],
    }
