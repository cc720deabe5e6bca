"""The council's record (seed 002): the briefs its members proposed, the judge's score of
each, the consensus and what was decided."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

CouncilDecision = Literal["best", "merged", "single"]


class CouncilProposal(BaseModel):
    """One member's brief and sub-questions, with the judge's score (None: not scored)."""

    member: str = Field(description="the model spec, or the planner's persona")
    brief: str
    sub_questions: list[str] = Field(default_factory=list)
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    reason: str = ""


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
