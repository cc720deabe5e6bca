"""The council (seed 002's validate_brief, as issue 16 reads it): several members propose a
research brief, the judge scores each, and ``core.council.decide`` takes the best or
merges the top two; then the members vote on that plan and the planner revises it below
the consensus (``stages/council_review.py``). Members are the ``--council-models`` when
given, else the planner in several personas. Called by the plan stage; its model calls are counted under the stage
``council`` in the run's usage.

Without a judge (or without a planner, when members are personas) there is no council:
the plan stage asks the planner once, as without ``--council``."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pydantic import BaseModel, field_validator

from deepresearch.context import RunContext
from deepresearch.core.council import decide, merge_briefs, merge_sub_questions, unit_score
from deepresearch.core.text import clip
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.llm.gateway import Gateway
from deepresearch.models import CouncilProposal, CouncilResult
from deepresearch.models.event_checks import CouncilDecided, CouncilMember
from deepresearch.models.event_payloads import NoCouncilWarning, StageCompleted, StageStarted
from deepresearch.models.plan import PlanDraft, PlannedSubQuestion
from deepresearch.recipes.research.stages.council_review import vote_on

STAGE = "council"

#: the planner's personas when no council models are named: the first is the planner as
#: it plans alone (the same prompt, so its reply is shared with a run without a council)
PERSONAS: tuple[tuple[str, str], ...] = (
    ("planner", ""),
    (
        "planner (specialist)",
        " Plan as a specialist in the question's field: favour primary sources, official"
        " records and exact figures, and split the question along its technical parts.",
    ),
    (
        "planner (sceptic)",
        " Plan as a sceptic: also look for what could make the obvious answer wrong:"
        " disputed facts, other readings of the question, counter-evidence.",
    ),
)

JUDGE_SYSTEM = f"""You score a proposed research plan for a question. {DATA_RULE}
Score from 0 to 1 how well researching these sub-questions would answer the question:
1 means it covers everything a complete answer needs, each sub-question is focused and
searchable, and nothing is off the question; 0 means it would not answer it. Give a one
sentence reason."""


class BriefScore(BaseModel):
    score: float
    reason: str = ""

    @field_validator("score")
    @classmethod
    def _unit(cls, value: float) -> float:
        return unit_score(value)


@dataclass(frozen=True)
class _Member:
    name: str
    gateway: Gateway
    persona: str


def members(ctx: RunContext) -> tuple[list[_Member], str]:
    """The council's members, or none and why not."""
    if not ctx.gateway.has_model("judge"):
        return [], "no judge model to score the proposals"
    if ctx.council_models:
        named = [
            _Member(spec, ctx.gateway.with_role_model("planner", model, spec), "")
            for spec, model in ctx.council_models.items()
            if model is not None
        ]
        return named, "" if named else "every council model is 'none'"
    if not ctx.gateway.has_model("planner"):
        return [], "no planner model"
    return [_Member(name, ctx.gateway, persona) for name, persona in PERSONAS], ""


async def convene(
    ctx: RunContext, *, system: str, user: str, question: str
) -> tuple[PlanDraft | None, CouncilResult | None]:
    """The council's plan and its record; (None, None) when there is no council (the plan
    stage then asks the planner alone); (None, record) when no member proposed anything."""
    council, why_not = members(ctx)
    if not council:
        ctx.bus.emit(
            NoCouncilWarning(code="no_council", reason=why_not),
            stage=STAGE,
            message=f"No council: {why_not}; one planner plans the run",
        )
        return None, None
    ctx.bus.emit(
        StageStarted(members=[member.name for member in council]),
        stage=STAGE,
        message=f"The council is planning ({len(council)} members)",
    )
    drafts = await asyncio.gather(
        *(
            member.gateway.structured(
                "planner", PlanDraft, system=system + member.persona, user=user, stage=STAGE
            )
            for member in council
        )
    )
    proposed = [(m, d) for m, d in zip(council, drafts, strict=True) if d is not None]
    threshold = ctx.policy.council_min_consensus
    if not proposed:
        result = CouncilResult(threshold=threshold, note="no member proposed a plan")
        _announce(ctx, result)
        ctx.bus.emit(StageCompleted(), stage=STAGE)
        return None, result
    scores = await asyncio.gather(*(_score(ctx.gateway, question, draft) for _, draft in proposed))
    proposals = [
        CouncilProposal(
            member=member.name,
            brief=draft.brief.strip(),
            sub_questions=[item.question for item in draft.sub_questions],
            score=None if score is None else score.score,
            reason=clip(score.reason.strip(), 300) if score is not None else "",
        )
        for (member, draft), score in zip(proposed, scores, strict=True)
    ]
    verdict = decide([p.score for p in proposals], threshold)
    drafts_chosen = [proposed[index][1] for index in verdict.chosen]
    if verdict.decision == "merged":
        best, second = drafts_chosen
        merged = merge_sub_questions(
            [(s.question, s.queries) for s in best.sub_questions],
            [(s.question, s.queries) for s in second.sub_questions],
        )
        plan = PlanDraft(
            brief=merge_briefs(best.brief, second.brief),
            sub_questions=[PlannedSubQuestion(question=q, queries=qs) for q, qs in merged],
        )
    else:
        plan = drafts_chosen[0]
    result = CouncilResult(
        proposals=proposals,
        consensus=verdict.consensus,
        threshold=threshold,
        decision=verdict.decision,
        chosen=verdict.chosen,
        note="" if verdict.consensus is not None else "the judge scored no proposal",
    )
    _announce(ctx, result)
    # then the members vote on the plan, and the planner revises it below the consensus
    plan, result = await vote_on(
        ctx, council, plan, result, system=system, user=user, question=question
    )
    ctx.bus.emit(StageCompleted(), stage=STAGE)
    return plan, result


async def _score(gateway: Gateway, question: str, draft: PlanDraft) -> BriefScore | None:
    lines = [f"Brief: {draft.brief.strip()}", "Sub-questions:"]
    lines += [f"- {item.question.strip()}" for item in draft.sub_questions]
    return await gateway.structured(
        "judge",
        BriefScore,
        system=JUDGE_SYSTEM,
        # a member's words, written from the user's question: fenced like any model text
        user=f"Question: {question}\n\nProposed plan:\n"
        + data_block("source", "\n".join(lines), kind="plan"),
        stage=STAGE,
    )


def _announce(ctx: RunContext, result: CouncilResult) -> None:
    scored = ", ".join(f"{p.member} {p.score:.2f}" for p in result.proposals if p.score is not None)
    if result.decision == "merged":
        what = f"consensus {result.consensus:.2f} < {result.threshold:.2f}: the top two merged"
    elif result.decision == "best":
        what = f"consensus {result.consensus:.2f} ≥ {result.threshold:.2f}: the best taken"
    else:
        what = result.note or "the planner's own plan taken"
    ctx.bus.emit(
        CouncilDecided(
            decision=result.decision,
            consensus=result.consensus,
            threshold=result.threshold,
            chosen=[result.proposals[i].member for i in result.chosen if i < len(result.proposals)],
            proposals=[
                CouncilMember(
                    member=p.member,
                    score=p.score,
                    reason=p.reason,
                    sub_questions=len(p.sub_questions),
                )
                for p in result.proposals
            ],
        ),
        stage=STAGE,
        message=f"Council: {what}" + (f" ({scored})" if scored else ""),
    )
