"""The research plan: a brief and the sub-questions the run researches."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

SubQuestionStatus = Literal["pending", "covered", "weak", "failed"]


class SubQuestion(BaseModel):
    id: str
    text: str
    queries: list[str] = Field(default_factory=list)
    wave: int = 0
    parent_id: str | None = Field(
        default=None, description="the sub-question a follow-up came from"
    )
    lead: str | None = Field(
        default=None, description="the lead this sub-question follows (issue 17), if any"
    )
    attempts: int = 0
    widened: int = Field(
        default=0,
        description="times researched again to read further results (a run reading widely)",
    )
    passing: int = Field(default=0, description="sources that passed the threshold, last wave")
    status: SubQuestionStatus = "pending"


class Plan(BaseModel):
    question: str
    brief: str
    sub_questions: list[SubQuestion]
    fallback: bool = Field(default=False, description="True when made without a model")
