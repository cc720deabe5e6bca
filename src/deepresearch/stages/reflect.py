"""Reflect (seeds 002/004's supervisor): read what was found, name what is missing and the
new leads it revealed (such as the entity a multi-hop question turns on), and queue
follow-up units; weak sub-questions are retried with reformulated queries. While the gate
does not pass, the leads that verified quotes revealed (``core.leads``: bridge names and
titles, compared things nobody quoted) are queued too, with or without a model, merged
with the model's follow-ups. The routing itself is the pure ``route_after_wave``: the
model proposes, the gate and caps decide. The model is not asked when the gate passed and
nothing else would queue a unit (``core.gate.reflection_wanted``): the run writes next."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.gate import reflection_wanted, route_after_wave
from deepresearch.core.leads import (
    Lead,
    find_leads,
    lead_sub_questions,
    leads_wanted,
    merge_follow_ups,
    to_widen,
)
from deepresearch.core.planning import fallback_queries, usable_queries
from deepresearch.core.questions import analyze_question
from deepresearch.core.reformulate import reformulate, stop_early
from deepresearch.core.text import clip
from deepresearch.core.untrusted import DATA_RULE, data_block
from deepresearch.models import SubQuestion
from deepresearch.models.event_payloads import LeadNote, QueuedUnit, Reflected, UnitStoppedWarning
from deepresearch.stages.unit import LEAD_SOURCES
from deepresearch.state import RunState

STAGE = "reflect"
FINDINGS_PER_QUESTION = 6
OPEN_LEADS_SHOWN = 3

SYSTEM = f"""You supervise a research run. {DATA_RULE}
Read the findings so far. Say briefly what is still missing to answer the question, and which
new leads the findings revealed (for example the person, place or work that a multi-hop
question turns on, now that the first hop is known). Propose follow-up sub-questions only
for real gaps or leads, each with concrete search queries that name the entities found.
Propose nothing when the findings already answer the question."""


class FollowUp(BaseModel):
    question: str
    queries: list[str] = Field(default_factory=list)


class Reflection(BaseModel):
    missing: list[str] = Field(default_factory=list)
    leads: list[str] = Field(default_factory=list)
    follow_ups: list[FollowUp] = Field(default_factory=list)


async def reflect(
    state: RunState, runtime: Runtime[RunContext]
) -> Command[Literal["research", "check_findings", "abort"]]:
    ctx = runtime.context
    limits = ctx.limits
    wave = state.get("wave", 0)
    units_used = state.get("units_used", 0)
    max_waves = limits.max_waves
    max_units = limits.max_units_total
    room = min(max_units - units_used, limits.max_concurrent_units * 2)
    if ctx.gateway.budget.check(ctx.gateway.usage, at=f"reflect wave {wave}") is not None:
        room = 0  # a budget ended the run: no new unit; the report from what there is
    if "findings_review" in state:
        room = 0  # the gap a person named was the one more wave: now the report
    sub_questions = list(state["sub_questions"])
    gate = state["gate"]
    per_question = limits.queries_per_question
    operators = ctx.search.supports_operators
    notes = list(state.get("reflections", []))

    # leads from the verified quotes: followed while the gate does not pass, or the run has
    # read fewer sources than its depth asks for, and there is room
    read = sum(1 for source in state.get("sources", {}).values() if source.fetched)
    floor = limits.min_sources_read
    wanted = leads_wanted(
        passed=gate.status == "pass",
        gaps=bool(gate.gaps),
        shortfall=floor - read,
        per_lead=LEAD_SOURCES,
    )
    queued: list[SubQuestion] = []
    follow_ups: list[SubQuestion] = []
    if wave < max_waves and room > 0:
        evidence_by_question = Counter(
            e.sub_question_id for e in state.get("evidence", []) if e.verified
        )
        sub_questions, stopped = _stop_empty(sub_questions, evidence_by_question)
        for sq in stopped:
            message = f"{sq.id}: nothing found after {sq.attempts} search iterations; stopped early"
            ctx.bus.emit(
                UnitStoppedWarning(code="unit_stopped", sub_question=sq.id),
                stage=STAGE,
                message=message,
            )
            notes.append(message)
        queued = _retry_weak(
            sub_questions, operators, per_question, max_refinements=limits.max_refinements
        )
        sub_questions = [next((q for q in queued if q.id == sq.id), sq) for sq in sub_questions]
        room -= len(queued)
        asking = reflection_wanted(passed=gate.status == "pass", leads=wanted, queued=len(queued))
        if room > 0 and asking and ctx.gateway.has_model("researcher"):
            reflection = await ctx.gateway.structured(
                "researcher", Reflection, system=SYSTEM, user=_findings(state), stage=STAGE
            )
            if reflection is not None:
                follow_ups = _follow_ups(
                    reflection, sub_questions, wave, room, per_question, operators
                )
                notes += [f"missing: {m}" for m in reflection.missing]
                notes += [f"lead: {lead}" for lead in reflection.leads]

    leads: list[Lead] = []
    followed = list(state.get("leads", []))
    if wanted > 0:
        leads = _leads(state, sub_questions, followed, limit=wanted + OPEN_LEADS_SHOWN)
    lead_units: list[SubQuestion] = []
    if wave < max_waves and room > 0:
        lead_units = lead_sub_questions(
            leads[: min(room, wanted)],
            [*sub_questions, *follow_ups],
            wave=wave,
            per_question=per_question,
            operators=operators,
        )
    added = merge_follow_ups(follow_ups, lead_units, room=room)
    sub_questions += added
    queued += added
    taken = {sq.lead for sq in added if sq.lead}
    followed += [lead.key for lead in leads if lead.text in taken]
    notes += [_lead_note(lead) for lead in leads if lead.text in taken]
    open_leads = [lead.text for lead in leads if lead.text not in taken][:OPEN_LEADS_SHOWN]
    # still short of the depth's floor: covered sub-questions read their next-best results
    per_unit = limits.sources_per_question
    expected = sum(LEAD_SOURCES if sq.lead else per_unit for sq in queued)
    if wave < max_waves:
        widened = to_widen(
            sub_questions,
            shortfall=floor - read - expected,
            per_unit=per_unit,
            room=room - len(added),
            operators=operators,
            count=per_question,
        )
        sub_questions = [next((w for w in widened if w.id == sq.id), sq) for sq in sub_questions]
        queued += widened
        notes += [
            f"{sq.id}: reading its next-best results ({read} of {floor} sources read)"
            for sq in widened
        ]

    route = route_after_wave(
        gate,
        wave=wave,
        max_waves=max_waves,
        units_used=units_used,
        max_units=max_units,
        pending_units=len(queued),
    )
    ctx.bus.emit(
        Reflected(
            route=route,
            queued=[
                QueuedUnit(
                    id=sq.id,
                    text=sq.text,
                    queries=list(sq.queries),
                    lead=sq.lead,
                    widened=sq.widened,
                )
                for sq in queued
            ],
            leads=[
                LeadNote(
                    text=lead.text,
                    kind=lead.kind,
                    score=lead.score,
                    evidence=list(lead.evidence_ids),
                    followed=lead.text in taken,
                )
                for lead in leads
            ],
            wave=wave,
            max_waves=max_waves,
            units_used=units_used,
            max_units=max_units,
        ),
        stage=STAGE,
        message=f"Next: {route}"
        + (f" ({len(queued)} unit(s) queued)" if queued else "")
        + (f"; leads: {', '.join(sorted(taken))}" if taken else ""),
    )
    update: RunState = {
        "sub_questions": sub_questions,
        "reflections": notes,
        "leads": followed,
        "open_leads": open_leads if route != "research" else [],
    }
    # writing starts with the findings check (``stages/check.py``)
    return Command(goto="check_findings" if route == "write" else route, update=update)


def _stop_empty(
    sub_questions: list[SubQuestion], evidence: Counter[str]
) -> tuple[list[SubQuestion], list[SubQuestion]]:
    """Weak sub-questions whose second iteration still found nothing become ``failed``."""
    out, stopped = [], []
    for sq in sub_questions:
        if sq.status == "weak" and stop_early(
            attempts=sq.attempts, evidence=evidence[sq.id], passing=sq.passing
        ):
            sq = sq.model_copy(update={"status": "failed"})
            stopped.append(sq)
        out.append(sq)
    return out, stopped


def _retry_weak(
    sub_questions: list[SubQuestion],
    operators: bool,
    count: int,
    *,
    max_refinements: int = 3,
) -> list[SubQuestion]:
    """Weak sub-questions (no verified evidence, or too few sources above the threshold)
    queued again with reformulated queries: broaden, then narrow, then synonyms and other
    kinds of sources, at most ``max_refinements`` times."""
    out = []
    for sq in sub_questions:
        # a lead that found nothing is not reformulated: the next lead is the better bet
        if sq.status == "weak" and sq.lead is None and 1 <= sq.attempts <= max_refinements:
            queries = reformulate(sq.text, attempt=sq.attempts, operators=operators, count=count)
            fresh = [q for q in queries if q not in sq.queries] or queries
            out.append(sq.model_copy(update={"status": "pending", "queries": fresh}))
    return out


def _follow_ups(
    reflection: Reflection,
    existing: list[SubQuestion],
    wave: int,
    room: int,
    per_question: int,
    operators: bool,
) -> list[SubQuestion]:
    known = {sq.text.strip().lower().rstrip("?") for sq in existing}
    out: list[SubQuestion] = []
    next_id = len(existing) + 1
    for item in reflection.follow_ups:
        text = " ".join(item.question.split())
        if not text or text.lower().rstrip("?") in known or len(out) >= room:
            continue
        known.add(text.lower().rstrip("?"))
        queries = usable_queries(
            [*item.queries, *fallback_queries(text, count=per_question, operators=operators)],
            operators=operators,
        )[:per_question]
        out.append(SubQuestion(id=f"q{next_id}", text=text, queries=queries, wave=wave + 1))
        next_id += 1
    return out


def _lead_note(lead: Lead) -> str:
    why = (
        "compared, not yet quoted"
        if lead.kind == "option"
        else "named by " + ", ".join(lead.evidence_ids[:3])
    )
    return f"lead: {lead.text} ({why})"


def _leads(
    state: RunState, sub_questions: list[SubQuestion], followed: list[str], *, limit: int
) -> list[Lead]:
    """At most ``limit`` leads the verified quotes reveal that the run has not followed."""
    sources = state.get("sources", {})
    return find_leads(
        analyze_question(state["question"]),
        state.get("evidence", []),
        titles={sid: source.title for sid, source in sources.items()},
        followed=followed,
        searched=[text for sq in sub_questions for text in (sq.text, *sq.queries)],
        read_titles=[s.title for s in sources.values() if s.fetched and s.title],
        read_texts=[s.text for s in sources.values() if s.fetched and s.text],
        limit=limit,
    )


def _findings(state: RunState) -> str:
    evidence = state.get("evidence", [])
    lines = [f"Question: {state['question']}", f"Brief: {state['plan'].brief}", ""]
    for sq in state["sub_questions"]:
        lines.append(f"Sub-question {sq.id} ({sq.status}): {sq.text}")
        claims = [e for e in evidence if e.sub_question_id == sq.id][:FINDINGS_PER_QUESTION]
        block = "\n".join(f"- {clip(e.claim, 300)}" for e in claims) or "- nothing found yet"
        lines.append(data_block("source", block, kind="findings"))
    gate = state["gate"]
    if gate.reasons:
        lines.append("Quality gate: " + "; ".join(gate.reasons))
    return "\n".join(lines)
