"""The council's revision loop (seed 002's validate_brief): once the council has its plan,
every member votes on it (approve / revise / reject, with feedback); ``core.council.review``
tallies the round against the consensus threshold, and below it the planner revises the
plan with the members' feedback and they vote again, up to ``council_max_revisions``
times. Every vote (``council_voted``), every round's tally (``council_reviewed``) and
every revision (``council_revised``) is an event, and ``CouncilResult`` keeps them all
(the plan review shows them). Fewer than two members, or two votes cast, is no vote:
the plan stands as the council decided, and the ``council_reviewed`` event says so. The
calls are counted under the stage ``council``, as the proposals'."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import BaseModel

from deepresearch.context import RunContext
from deepresearch.core.council import MIN_VOTERS, Review, review, revision_feedback
from deepresearch.core.text import clip
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.llm.gateway import Gateway
from deepresearch.models import CouncilResult
from deepresearch.models.council import CouncilRevision, CouncilVote
from deepresearch.models.event_checks import CouncilReviewed, CouncilRevised, CouncilVoted
from deepresearch.models.plan import PlanDraft

STAGE = "council"

VOTE_SYSTEM = f"""You review a research plan as a member of a council. {DATA_RULE}
Vote "approve" when researching these sub-questions would answer the question well,
"revise" when it would with changes, "reject" when it would not. Give one or two sentences
of feedback: what the plan must change (or why it is good as it is)."""

REVISE = (
    "\n\nThe council's members reviewed this plan:\n{plan}\n\nTheir feedback:\n{feedback}\n\n"
    "Write the plan again, whole: keep what they approve of and change what they ask for."
)


class BriefVote(BaseModel):
    verdict: Literal["approve", "revise", "reject"]
    feedback: str = ""


class Voter(Protocol):
    """A council member as the vote sees it (``stages.council``'s members)."""

    @property
    def name(self) -> str: ...
    @property
    def gateway(self) -> Gateway: ...
    @property
    def persona(self) -> str: ...


async def vote_on(
    ctx: RunContext,
    voters: Sequence[Voter],
    plan: PlanDraft,
    result: CouncilResult,
    *,
    system: str,
    user: str,
    question: str,
) -> tuple[PlanDraft, CouncilResult]:
    """The plan the votes leave standing, and the council's record with its rounds."""
    threshold = ctx.policy.council_min_consensus
    most = ctx.policy.council_max_revisions
    if len(voters) < MIN_VOTERS:
        note = f"{len(voters)} member(s): a vote needs {MIN_VOTERS}; the plan stands"
        _tallied(ctx, 0, Review("no_vote", None, note), threshold, 0)
        return plan, result.model_copy(update={"review": "no_vote", "review_note": note})
    votes: list[CouncilVote] = []
    revisions: list[CouncilRevision] = []
    while True:
        round_votes = await _ballot(ctx, voters, plan, question, len(revisions))
        votes += round_votes
        tally = review(
            [v.verdict for v in round_votes],
            threshold,
            revisions=len(revisions),
            max_revisions=most,
        )
        cast = sum(v.verdict is not None for v in round_votes)
        if tally.outcome == "revise":
            feedback = revision_feedback(round_votes)
            revised = await _revise(ctx, plan, feedback, system=system, user=user)
            if revised is None:
                note = "the planner gave no revision; the last plan stands"
                tally = Review("stopped", tally.consensus, note)
            else:
                _tallied(ctx, len(revisions), tally, threshold, cast)
                plan = revised
                revisions.append(_revised(ctx, len(revisions) + 1, tally, feedback, plan))
                continue
        _tallied(ctx, len(revisions), tally, threshold, cast)
        update = {
            "votes": votes,
            "revisions": revisions,
            "review": tally.outcome,
            "review_note": tally.note,
        }
        return plan, result.model_copy(update=update)


async def _ballot(
    ctx: RunContext, voters: Sequence[Voter], plan: PlanDraft, question: str, round_: int
) -> list[CouncilVote]:
    lines = [f"Brief: {plan.brief.strip()}", "Sub-questions:"]
    lines += [f"- {item.question.strip()}" for item in plan.sub_questions]
    # the plan is model text written from the user's question: fenced like any model text
    user = f"Question: {question}\n\nThe plan:\n" + data_block(
        "source", "\n".join(lines), kind="plan"
    )
    replies = await asyncio.gather(
        *(
            voter.gateway.structured(
                "planner", BriefVote, system=VOTE_SYSTEM + voter.persona, user=user, stage=STAGE
            )
            for voter in voters
        )
    )
    votes = []
    for voter, reply in zip(voters, replies, strict=True):
        vote = CouncilVote(
            round=round_,
            member=voter.name,
            verdict=None if reply is None else reply.verdict,
            feedback="" if reply is None else clip(reply.feedback.strip(), 500),
        )
        votes.append(vote)
        said = vote.verdict or "no usable vote"
        ctx.bus.emit(
            CouncilVoted(
                round=round_, member=vote.member, verdict=vote.verdict, feedback=vote.feedback
            ),
            stage=STAGE,
            message=f"{vote.member}: {said}" + (f" ({vote.feedback})" if vote.feedback else ""),
        )
    return votes


async def _revise(
    ctx: RunContext, plan: PlanDraft, feedback: str, *, system: str, user: str
) -> PlanDraft | None:
    """The planner's plan written again with the feedback; None without a planner or a
    reply the schema accepts."""
    if not ctx.gateway.has_model("planner"):
        return None
    lines = [f"Brief: {plan.brief.strip()}", "Sub-questions:"]
    lines += [f"- {item.question.strip()}" for item in plan.sub_questions]
    asked = user + REVISE.format(
        plan=data_block("source", "\n".join(lines), kind="plan"),
        feedback=data_block("source", feedback or "(none given)", kind="feedback"),
    )
    return await ctx.gateway.structured(
        "planner", PlanDraft, system=system, user=asked, stage=STAGE
    )


def _revised(
    ctx: RunContext, number: int, tally: Review, feedback: str, plan: PlanDraft
) -> CouncilRevision:
    revision = CouncilRevision(
        round=number,
        consensus=tally.consensus,
        feedback=feedback,
        brief=plan.brief.strip(),
        sub_questions=[item.question for item in plan.sub_questions],
    )
    ctx.bus.emit(
        CouncilRevised(
            round=number,
            feedback=feedback,
            brief=revision.brief,
            sub_questions=list(revision.sub_questions),
        ),
        stage=STAGE,
        message=f"The planner revised the plan ({number})",
    )
    return revision


def _tallied(ctx: RunContext, round_: int, tally: Review, threshold: float, cast: int) -> None:
    if tally.consensus is None:
        what = f"no vote: {tally.note}"
    else:
        sign = "≥" if tally.outcome == "approved" else "<"
        what = f"consensus {tally.consensus:.2f} {sign} {threshold:.2f}: {tally.outcome}"
        what += f" ({tally.note})" if tally.note else ""
    ctx.bus.emit(
        CouncilReviewed(
            round=round_,
            outcome=tally.outcome,
            consensus=tally.consensus,
            threshold=threshold,
            votes=cast,
            note=tally.note,
        ),
        stage=STAGE,
        message=f"Council vote, round {round_}: {what}",
    )
