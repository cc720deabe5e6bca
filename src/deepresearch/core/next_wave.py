"""What follows a research wave, pure: reflect's policy (``stages/reflect.py`` maps the run's
state to these calls, asks the model in between and emits the events).

A decision comes in two steps, because the researcher model may be asked in the middle:

1. ``retry_wave``: the room left for new units; weak sub-questions that still found
   nothing stop (``failed``), the other weak ones are queued again with reformulated
   queries; how many leads the next wave follows; whether the model is asked for gaps
   and follow-ups (``core.gate.reflection_wanted``).
2. ``decide_next_wave``: the model's follow-ups (``follow_up_units``) and the leads the
   verified quotes revealed merged within the room; covered sub-questions widened while
   the run has read fewer sources than its depth asks for; the route
   (``core.gate.route_after_wave``: the model proposes, the gate and caps decide).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from deepresearch.core.gate import GateResult, Route, reflection_wanted, route_after_wave
from deepresearch.core.leads import (
    Lead,
    lead_sub_questions,
    leads_wanted,
    merge_follow_ups,
    to_widen,
)
from deepresearch.core.planning import fallback_queries, usable_queries
from deepresearch.core.reformulate import reformulate, stop_early
from deepresearch.models import SubQuestion

#: leads the report names as open, besides those followed
OPEN_LEADS_SHOWN = 3


@dataclass(frozen=True)
class WaveFacts:
    """What the policy reads of a run after a wave, as plain data."""

    gate: GateResult
    wave: int
    max_waves: int
    units_used: int
    max_units: int
    #: units the next wave may still queue (``wave_room``)
    room: int
    #: sources the run has read, and the floor its depth asks for
    read: int
    floor: int
    per_question: int
    #: sources a unit reads (``sources_per_question``), and a lead's unit
    per_unit: int
    lead_sources: int
    max_refinements: int
    operators: bool


@dataclass(frozen=True)
class Retries:
    """The first step's decision: the sub-questions with the stopped ones failed and the
    retried ones pending, those stopped, those queued again, the room left after them, how
    many leads are wanted and whether to ask the researcher model."""

    sub_questions: list[SubQuestion]
    stopped: list[SubQuestion]
    queued: list[SubQuestion]
    room: int
    wanted: int
    ask: bool


@dataclass(frozen=True)
class NextWave:
    """The second step's decision: the sub-questions after it, the units queued for the
    next wave, the leads taken (by text), the keys of every lead followed so far, the
    notes it adds to the reflections, the leads left open and the route."""

    sub_questions: list[SubQuestion]
    queued: list[SubQuestion]
    leads: list[Lead]
    taken: set[str]
    followed: list[str]
    notes: list[str]
    open_leads: list[str]
    route: Route


def wave_room(*, max_units: int, units_used: int, max_concurrent: int, stopped: bool) -> int:
    """Units the next wave may queue: what the cap leaves, at most two waves' worth of
    concurrent units; none when the run must stop (a budget ran out, or the one more wave
    a person asked for in the findings review has run)."""
    return 0 if stopped else min(max_units - units_used, max_concurrent * 2)


def stop_empty(
    sub_questions: Sequence[SubQuestion], evidence: Mapping[str, int]
) -> tuple[list[SubQuestion], list[SubQuestion]]:
    """Weak sub-questions whose second iteration still found nothing become ``failed``."""
    out, stopped = [], []
    for sq in sub_questions:
        if sq.status == "weak" and stop_early(
            attempts=sq.attempts, evidence=evidence.get(sq.id, 0), passing=sq.passing
        ):
            sq = sq.model_copy(update={"status": "failed"})
            stopped.append(sq)
        out.append(sq)
    return out, stopped


def retry_weak(
    sub_questions: Sequence[SubQuestion],
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


def follow_up_units(
    proposals: Sequence[tuple[str, Sequence[str]]],
    existing: Sequence[SubQuestion],
    wave: int,
    room: int,
    per_question: int,
    operators: bool,
) -> list[SubQuestion]:
    """The model's proposed follow-ups (question, queries) as the next wave's
    sub-questions: fresh ids, a question asked already dropped (case, spacing and a
    question mark aside), at most ``room``, each with ``per_question`` usable queries."""
    known = {sq.text.strip().lower().rstrip("?") for sq in existing}
    out: list[SubQuestion] = []
    next_id = len(existing) + 1
    for question, proposed in proposals:
        text = " ".join(question.split())
        if not text or text.lower().rstrip("?") in known or len(out) >= room:
            continue
        known.add(text.lower().rstrip("?"))
        queries = usable_queries(
            [*proposed, *fallback_queries(text, count=per_question, operators=operators)],
            operators=operators,
        )[:per_question]
        out.append(SubQuestion(id=f"q{next_id}", text=text, queries=queries, wave=wave + 1))
        next_id += 1
    return out


def lead_note(lead: Lead) -> str:
    """The reflection note of a lead followed."""
    why = (
        "compared, not yet quoted"
        if lead.kind == "option"
        else "named by " + ", ".join(lead.evidence_ids[:3])
    )
    return f"lead: {lead.text} ({why})"


def retry_wave(
    facts: WaveFacts, sub_questions: Sequence[SubQuestion], evidence: Mapping[str, int]
) -> Retries:
    """Step one, before the model is asked: stop and retry weak sub-questions (only with a
    wave and room left); ``evidence`` is the verified evidence per sub-question id.
    Leads are wanted while the gate does not pass, or while the run has read fewer
    sources than its floor."""
    passed = facts.gate.status == "pass"
    wanted = leads_wanted(
        passed=passed,
        gaps=bool(facts.gate.gaps),
        shortfall=facts.floor - facts.read,
        per_lead=facts.lead_sources,
    )
    if not (facts.wave < facts.max_waves and facts.room > 0):
        return Retries(list(sub_questions), [], [], facts.room, wanted, ask=False)
    current, stopped = stop_empty(sub_questions, evidence)
    queued = retry_weak(
        current, facts.operators, facts.per_question, max_refinements=facts.max_refinements
    )
    current = [next((q for q in queued if q.id == sq.id), sq) for sq in current]
    room = facts.room - len(queued)
    asking = reflection_wanted(passed=passed, leads=wanted, queued=len(queued))
    return Retries(current, stopped, queued, room, wanted, ask=room > 0 and asking)


def decide_next_wave(
    facts: WaveFacts,
    retries: Retries,
    follow_ups: Sequence[SubQuestion],
    leads: Sequence[Lead],
    followed: Sequence[str],
) -> NextWave:
    """Step two, after the model's ``follow_ups`` (none when it was not asked): the
    ``leads`` found (best first) and the keys of those ``followed`` in earlier waves."""
    room = retries.room
    more = facts.wave < facts.max_waves
    lead_units: list[SubQuestion] = []
    if more and room > 0:
        lead_units = lead_sub_questions(
            leads[: min(room, retries.wanted)],
            [*retries.sub_questions, *follow_ups],
            wave=facts.wave,
            per_question=facts.per_question,
            operators=facts.operators,
        )
    added = merge_follow_ups(follow_ups, lead_units, room=room)
    sub_questions = [*retries.sub_questions, *added]
    queued = [*retries.queued, *added]
    taken = {sq.lead for sq in added if sq.lead}
    notes = [lead_note(lead) for lead in leads if lead.text in taken]
    open_leads = [lead.text for lead in leads if lead.text not in taken][:OPEN_LEADS_SHOWN]
    if more:
        sub_questions, widened = _widen(facts, sub_questions, queued, room=room - len(added))
        queued += widened
        notes += [
            f"{sq.id}: reading its next-best results ({facts.read} of {facts.floor} sources read)"
            for sq in widened
        ]
    route = route_after_wave(
        facts.gate,
        wave=facts.wave,
        max_waves=facts.max_waves,
        units_used=facts.units_used,
        max_units=facts.max_units,
        pending_units=len(queued),
    )
    return NextWave(
        sub_questions=sub_questions,
        queued=queued,
        leads=list(leads),
        taken=taken,
        followed=[*followed, *(lead.key for lead in leads if lead.text in taken)],
        notes=notes,
        open_leads=open_leads if route != "research" else [],
        route=route,
    )


def _widen(
    facts: WaveFacts,
    sub_questions: list[SubQuestion],
    queued: Sequence[SubQuestion],
    *,
    room: int,
) -> tuple[list[SubQuestion], list[SubQuestion]]:
    """Still short of the depth's floor once the queued units have read theirs: covered
    sub-questions read their next-best results. The sub-questions after, and those widened."""
    expected = sum(facts.lead_sources if sq.lead else facts.per_unit for sq in queued)
    widened = to_widen(
        sub_questions,
        shortfall=facts.floor - facts.read - expected,
        per_unit=facts.per_unit,
        room=room,
        operators=facts.operators,
        count=facts.per_question,
    )
    return [next((w for w in widened if w.id == sq.id), sq) for sq in sub_questions], widened
