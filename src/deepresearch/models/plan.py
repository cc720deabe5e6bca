"""The research plan: a brief and the sub-questions the run researches, and the draft of
one that a planner (or a council member) proposes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

SubQuestionStatus = Literal["pending", "covered", "weak", "failed"]
#: how a research unit (one sub-question's research in a wave) ended (``core.units``)
UnitStatus = Literal["completed", "failed", "timed_out"]


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
    failure: str | None = Field(
        default=None,
        description="why its last research unit failed (issue 28): "
        "'research unit timed out' or 'research unit execution failed'",
    )


class Plan(BaseModel):
    question: str
    brief: str
    sub_questions: list[SubQuestion]
    fallback: bool = Field(default=False, description="True when made without a model")
    # seed 004's research plan (defaults: a checkpoint from before them still loads)
    scope: str = Field(default="", description="what the answer covers")
    evidence_strategy: str = Field(default="", description="how sources are found and checked")
    output_format: str = Field(default="", description="what the report will look like")
    presearch: list[str] = Field(
        default_factory=list,
        description="the pre-search results the planner was given (title (site): snippet)",
    )


# what the planner answers: these schemas are part of its prompt, so a docstring or a
# description added here changes what the model is sent (and every recorded run)
class PlannedSubQuestion(BaseModel):
    question: str
    queries: list[str] = Field(default_factory=list)


class PlanDraft(BaseModel):
    """A research brief and its sub-questions: what the planner, or a council member, proposes."""

    brief: str
    sub_questions: list[PlannedSubQuestion]
    scope: str = ""
    evidence_strategy: str = ""
    output_format: str = ""
