"""The deterministic quality gate (seed 004) and the routing after each wave (seed 001's
sufficiency check). The model never decides that research is done; these functions do."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from deepresearch.core.answers import answer_gaps
from deepresearch.core.content_quality import at_least
from deepresearch.core.questions import analyze_question
from deepresearch.core.subject import unseen_subject
from deepresearch.core.units import failed_units
from deepresearch.models import Evidence, SubQuestion
from deepresearch.models.source import ContentQuality

GateStatus = Literal["pass", "retry", "abort"]


@dataclass(frozen=True)
class GateThresholds:
    min_evidence: int = 5
    min_cited_evidence: int = 5
    min_domains: int = 3
    min_evidence_per_question: int = 1


class GateResult(BaseModel):
    status: GateStatus
    reasons: list[str] = Field(default_factory=list)
    evidence: int = 0
    cited_evidence: int = 0
    domains: list[str] = Field(default_factory=list)
    weak_sub_questions: list[str] = Field(default_factory=list)
    per_question: dict[str, int] = Field(default_factory=dict)
    #: what the evidence does not yet show to answer the question (issue 17)
    gaps: list[str] = Field(default_factory=list)
    #: the question's named things when no page read names one (``core.subject``): more
    #: research may still find them; a run with nothing more to read aborts
    unseen: list[str] = Field(default_factory=list)


def domain_of(url: str) -> str:
    """Host without a leading ``www.``; ``file`` URLs count as the local corpus."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        return "local corpus"
    host = (parts.hostname or "").lower()
    return host.removeprefix("www.")


def evaluate_gate(
    evidence: Sequence[Evidence],
    sub_questions: Sequence[SubQuestion],
    thresholds: GateThresholds,
    *,
    question: str | None = None,
    titles: Mapping[str, str] | None = None,
    texts: Iterable[str] | None = None,
    asked_for: Sequence[str] = (),
    content: Mapping[str, ContentQuality | None] | None = None,
) -> GateResult:
    """Seed 004: enough evidence, enough cited evidence (verified, with a source URL), and
    enough distinct domains; plus every sub-question covered by some evidence, and no
    research unit failed (``core.units``: named with its reason). Given the
    ``question``, also what the evidence must show to answer it (``answer_gaps``: every
    compared thing quoted, a value of the asked kind, both steps of a multi-hop chain;
    ``titles``: page titles by source id). Given ``texts`` (every page read), a question
    whose named things no page names at all aborts: what was found is about something
    else (``core.subject``); the things named in ``asked_for`` (what a person added to
    the research: an edited plan's sub-questions, a gap) count as the question's.
    ``content``: each source's content-quality tier by source id (seed 001); a page
    whose content is INSUFFICIENT (under ten words) adds no distinct domain."""
    verified = [item for item in evidence if item.verified]
    cited = [item for item in verified if item.source_url]
    tiers = content or {}
    domains = sorted(
        {domain_of(item.source_url) for item in cited if at_least(tiers.get(item.source_id), "LOW")}
    )
    per_question = {sq.id: 0 for sq in sub_questions}
    for item in verified:
        if item.sub_question_id in per_question:
            per_question[item.sub_question_id] += 1
    weak = [
        sq_id
        for sq_id, count in per_question.items()
        if count < thresholds.min_evidence_per_question
    ]
    reasons = []
    if len(verified) < thresholds.min_evidence:
        reasons.append(f"{len(verified)} verified evidence records, need {thresholds.min_evidence}")
    if len(cited) < thresholds.min_cited_evidence:
        reasons.append(f"{len(cited)} cited evidence records, need {thresholds.min_cited_evidence}")
    if len(domains) < thresholds.min_domains:
        reasons.append(f"{len(domains)} distinct source domains, need {thresholds.min_domains}")
    if weak:
        reasons.append(f"{len(weak)} sub-question(s) without enough evidence")
    failed = failed_units(sub_questions)
    if failed:  # seed 004: a unit's failure is its own, and the gate names it
        reasons.append(
            "research failed for " + ", ".join(f"{sq.id} ({sq.failure})" for sq in failed)
        )
    profile = analyze_question(question) if question else None
    gaps = [gap.detail for gap in answer_gaps(profile, verified, titles)] if profile else []
    reasons.extend(gaps)
    subject = analyze_question(" ".join([question, *asked_for])) if question else None
    unseen = unseen_subject(subject, texts) if subject and texts is not None else []
    if unseen:
        reasons.insert(0, f"no page read names {_either(unseen)}: nothing found is about it")
    if not verified:
        status: GateStatus = "abort"
    elif reasons:
        status = "retry"
    else:
        status = "pass"
    return GateResult(
        status=status,
        reasons=reasons,
        evidence=len(verified),
        cited_evidence=len(cited),
        domains=domains,
        weak_sub_questions=weak,
        per_question=per_question,
        gaps=gaps,
        unseen=unseen,
    )


def _either(things: Sequence[str]) -> str:
    return things[0] if len(things) == 1 else ", ".join(things[:-1]) + f" or {things[-1]}"


Route = Literal["research", "write", "abort"]


def route_after_wave(
    gate: GateResult,
    *,
    wave: int,
    max_waves: int,
    units_used: int,
    max_units: int,
    pending_units: int,
) -> Route:
    """Seed 001's sufficiency routing, with caps on waves and research units.

    - nothing verified after the second wave, or when out of waves/units: abort;
    - more work queued (weak sub-questions or follow-ups) and budget left: research;
    - nothing more to do and no page read names what the question asks about: abort
      (the quotes are about something else);
    - otherwise write with what there is (limitations say what the gate missed).
    """
    out_of_budget = wave >= max_waves or units_used >= max_units
    if gate.status == "abort" and (wave >= 2 or out_of_budget):
        return "abort"
    if pending_units > 0 and not out_of_budget:
        return "research"
    if gate.status == "abort" or gate.unseen:
        return "abort"
    return "write"


def reflection_wanted(*, passed: bool, leads: int, queued: int) -> bool:
    """Whether reflect asks the researcher model for gaps and follow-ups after a wave.

    Not when the gate passed, no lead is wanted (``core.leads.leads_wanted``: the run has
    read its depth's floor of sources) and no weak sub-question is queued again: the run
    writes next, and the model's call would only sit on the critical path before the
    report (it is told to propose nothing when the findings answer the question). While
    the gate fails, or a wave follows anyway, the model's follow-ups join that wave."""
    return not passed or leads > 0 or queued > 0
