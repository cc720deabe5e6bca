"""The council's record (seed 002): the briefs its members proposed, the judge's score of
each, the consensus and what was decided; then each round of the members' votes on the
plan (approve / revise / reject with feedback) and each revision the planner made."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

CouncilDecision = Literal["best", "merged", "single"]
#: a member's vote on the plan (seed 002's validate_brief)
VoteVerdict = Literal["approve", "revise", "reject"]
#: what a round of votes decided: `approved` (consensus at or above the threshold),
#: `revise` (below: the planner revises), `stopped` (below, and no revision is left or the
#: revision failed: the last plan stands), `no_vote` (too few members or votes: the plan
#: stands as decided, as without votes)
ReviewOutcome = Literal["approved", "revise", "stopped", "no_vote"]


class CouncilProposal(BaseModel):
    """One member's brief and sub-questions, with the judge's score (None: not scored)."""

    member: str = Field(description="the model spec, or the planner's persona")
    brief: str
    sub_questions: list[str] = Field(default_factory=list)
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    reason: str = ""


class CouncilVote(BaseModel):
    """One member's vote on the plan in one round (None: no usable reply, an abstention)."""

    round: int = Field(ge=0, description="0: the council's plan; n: after the n-th revision")
    member: str
    verdict: VoteVerdict | None = None
    feedback: str = ""


class CouncilRevision(BaseModel):
    """The plan the planner wrote from a round's feedback."""

    round: int = Field(ge=1, description="the revision's number, 1 first")
    consensus: float | None = Field(description="the consensus of the round that asked for it")
    feedback: str = Field(description="the members' feedback the planner was given")
    brief: str
    sub_questions: list[str] = Field(default_factory=list)


class CouncilResult(BaseModel):
    proposals: list[CouncilProposal] = Field(default_factory=list)
    consensus: float | None = Field(
        default=None, description="mean of the judge's scores, 0-1; None when nothing was scored"
    )
    threshold: float = 0.7
    decision: CouncilDecision = "single"
    chosen: list[int] = Field(
        default_factory=list, description="the proposals the plan came from, best first"
    )
    note: str = Field(default="", description="why the council fell back, when it did")
    # the vote rounds (defaults: a checkpoint from before them loads as "no votes")
    votes: list[CouncilVote] = Field(default_factory=list, description="every vote, every round")
    revisions: list[CouncilRevision] = Field(
        default_factory=list, description="every revision the planner made, in order"
    )
    review: ReviewOutcome | None = Field(
        default=None, description="the last round's outcome; None: no round was held"
    )
    review_note: str = Field(default="", description="why no vote was held, or why it stopped")
