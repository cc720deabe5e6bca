"""Reflect (seeds 002/004's supervisor): read what was found, name what is missing and the
new leads it revealed (such as the entity a multi-hop question turns on), and queue
follow-up units; weak sub-questions are retried with reformulated queries. While the gate
does not pass, the leads that verified quotes revealed (``core.leads``: bridge names and
titles, compared things nobody quoted) are queued too, with or without a model, merged
with the model's follow-ups. The policy is pure (``core.next_wave``: what is retried, what
is queued, the route, which is ``route_after_wave``'s): the model proposes, the gate and
caps decide; this node maps the state to it, asks the model and emits the events. The
model is not asked when the gate passed and nothing else would queue a unit
(``core.gate.reflection_wanted``): the run writes next."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.leads import Lead, find_leads
from deepresearch.core.next_wave import (
    OPEN_LEADS_SHOWN,
    NextWave,
    WaveFacts,
    decide_next_wave,
    follow_up_units,
    retry_wave,
    wave_room,
)
from deepresearch.core.questions import analyze_question
from deepresearch.core.text import clip
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.models import SubQuestion
from deepresearch.models.event_payloads import LeadNote, QueuedUnit, Reflected, UnitStoppedWarning
from deepresearch.recipes.research.stages.unit import LEAD_SOURCES
from deepresearch.recipes.research.state import RunState

STAGE = "reflect"
FINDINGS_PER_QUESTION = 6

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
    facts = _facts(state, ctx)
    verified = Counter(e.sub_question_id for e in state.get("evidence", []) if e.verified)
    retries = retry_wave(facts, state["sub_questions"], verified)
    notes = [*state.get("reflections", []), *_announce_stopped(ctx, retries.stopped)]
    follow_ups: list[SubQuestion] = []
    if retries.ask and ctx.gateway.has_model("researcher"):
        reflection = await ctx.gateway.structured(
            "researcher", Reflection, system=SYSTEM, user=_findings(state), stage=STAGE
        )
        if reflection is not None:
            follow_ups = _follow_ups(
                reflection,
                retries.sub_questions,
                facts.wave,
                retries.room,
                facts.per_question,
                facts.operators,
            )
            notes += [f"missing: {m}" for m in reflection.missing]
            notes += [f"lead: {lead}" for lead in reflection.leads]
    followed = list(state.get("leads", []))
    leads: list[Lead] = []
    if retries.wanted > 0:
        limit = retries.wanted + OPEN_LEADS_SHOWN
        leads = _leads(state, retries.sub_questions, followed, limit=limit)
    decision = decide_next_wave(facts, retries, follow_ups, leads, followed)
    _announce(ctx, facts, decision)
    update: RunState = {
        "sub_questions": decision.sub_questions,
        "reflections": [*notes, *decision.notes],
        "leads": decision.followed,
        "open_leads": decision.open_leads,
    }
    # writing starts with the findings check (``stages/check.py``)
    route = decision.route
    return Command(goto="check_findings" if route == "write" else route, update=update)


def _facts(state: RunState, ctx: RunContext) -> WaveFacts:
    """What the wave policy reads of the run: its gate, caps, room and reading so far."""
    limits = ctx.limits
    wave = state.get("wave", 0)
    units_used = state.get("units_used", 0)
    # a budget that ended the run, or the one more wave a person asked for in the
    # findings review having run: no new unit; the report from what there is
    over_budget = ctx.gateway.budget.check(ctx.gateway.usage, at=f"reflect wave {wave}")
    return WaveFacts(
        gate=state["gate"],
        wave=wave,
        max_waves=limits.max_waves,
        units_used=units_used,
        max_units=limits.max_units_total,
        room=wave_room(
            max_units=limits.max_units_total,
            units_used=units_used,
            max_concurrent=limits.max_concurrent_units,
            stopped=over_budget is not None or "findings_review" in state,
        ),
        read=sum(1 for source in state.get("sources", {}).values() if source.fetched),
        floor=limits.min_sources_read,
        per_question=limits.queries_per_question,
        per_unit=limits.sources_per_question,
        lead_sources=LEAD_SOURCES,
        max_refinements=limits.max_refinements,
        operators=ctx.search.supports_operators,
    )


def _announce_stopped(ctx: RunContext, stopped: list[SubQuestion]) -> list[str]:
    """A warning for each sub-question stopped early; the notes they add."""
    notes = []
    for sq in stopped:
        message = f"{sq.id}: nothing found after {sq.attempts} search iterations; stopped early"
        ctx.bus.emit(
            UnitStoppedWarning(code="unit_stopped", sub_question=sq.id),
            stage=STAGE,
            message=message,
        )
        notes.append(message)
    return notes


def _announce(ctx: RunContext, facts: WaveFacts, decision: NextWave) -> None:
    """The ``reflected`` event: the route, the units queued and the leads considered."""
    queued, taken = decision.queued, decision.taken
    ctx.bus.emit(
        Reflected(
            route=decision.route,
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
                for lead in decision.leads
            ],
            wave=facts.wave,
            max_waves=facts.max_waves,
            units_used=facts.units_used,
            max_units=facts.max_units,
        ),
        stage=STAGE,
        message=f"Next: {decision.route}"
        + (f" ({len(queued)} unit(s) queued)" if queued else "")
        + (f"; leads: {', '.join(sorted(taken))}" if taken else ""),
    )


def _follow_ups(
    reflection: Reflection,
    existing: list[SubQuestion],
    wave: int,
    room: int,
    per_question: int,
    operators: bool,
) -> list[SubQuestion]:
    """The model's follow-ups as the next wave's sub-questions (``core.next_wave``)."""
    proposals = [(item.question, item.queries) for item in reflection.follow_ups]
    return follow_up_units(proposals, existing, wave, room, per_question, operators)


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
