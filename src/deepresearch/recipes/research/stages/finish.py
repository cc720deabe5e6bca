"""The two ways a run ends without a researched report: an honest abort (seed 001: never
invent a report from empty evidence) and a direct response (chitchat, refusal, a
clarifying question)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from deepresearch.context import RunContext
from deepresearch.core.assemble import considered_order
from deepresearch.models import Paragraph, Report, Section, Sentence
from deepresearch.models.event_payloads import ReportReady
from deepresearch.recipes.research.state import RunState

SUGGESTIONS = [
    "Rephrase the question with more specific names, places or dates.",
    "Try another search provider (--search) or add a local document folder (--corpus).",
    "Use a deeper setting (--depth deep) to allow more search waves.",
]


def _plain(heading: str, text: str) -> Section:
    return Section(heading=heading, paragraphs=[Paragraph(sentences=[Sentence(text=text)])])


def _outcome(verified: int) -> str:
    if verified:  # quotes were verified, but about something other than the question
        return "no verified passage is about the question"
    return "no passage could be verified as evidence"


async def abort(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    sources = state.get("sources", {})
    read = sum(1 for s in sources.values() if s.fetched)
    queries = sum(len(sq.queries) for sq in state.get("sub_questions", []))
    gate = state.get("gate")
    why = "; ".join(gate.reasons) if gate is not None and gate.reasons else "no usable sources"
    considered = considered_order(state.get("considered", {}).values())
    listed = (
        ' Every source read or considered is listed under "Sources considered", with its '
        "scores and what was decided."
        if considered
        else ""
    )
    report = Report(
        run_id=state["run_id"],
        question=state["question"],
        title=f"Unable to research: {state['question']}",
        kind="abort",
        sections=[
            _plain(
                "Research limitations",
                f"After {state.get('wave', 0)} search wave(s), {queries} queries and {read} "
                f"sources read, {_outcome(gate.evidence if gate is not None else 0)} ({why}).",
            ),
            _plain(
                "What this means",
                "Rather than write a report that is not backed by sources, deepresearch stopped "
                "here. Nothing below is a finding." + listed,
            ),
        ],
        suggestions=SUGGESTIONS,
        limitations=list(dict.fromkeys(state.get("warnings", [])))[:5],
        notice="No reliable sources were found, so no findings are reported.",
        considered=considered,
        created_at=ctx.clock(),
    )
    ctx.bus.emit(
        ReportReady(kind="abort"), stage="abort", message="Abort report: nothing reliable found"
    )
    return {"report": report}


async def respond(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    intent = state.get("intent", "chitchat")
    reply = state.get("intent_reply", "")
    if intent == "malicious":
        kind, title = "refusal", "Request refused"
        why = f" Why: {reply.strip()}." if reply.strip() else ""
        reply = (
            "This request looks like an attempt to change the assistant's instructions or to "
            f"cause harm, so it was not researched.{why} Ask a research question instead."
        )
    elif intent == "clarify":
        kind, title = "clarification", "A question before researching"
    else:
        kind, title = "chitchat", "Hello"
    report = Report(
        run_id=state["run_id"],
        question=state["question"],
        title=title,
        kind=kind,
        summary=[Sentence(text=reply)] if reply else [],
        created_at=ctx.clock(),
    )
    ctx.bus.emit(ReportReady(kind=kind, reply=reply), stage="intake", message=title)
    return {"report": report}
