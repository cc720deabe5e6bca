"""The payloads of a run that waits for a person (issue 15): what it asks, what it was
answered, and a waiting job that expired unanswered. Registered like the core types'."""

from __future__ import annotations

from pydantic import BaseModel, Field

from deepresearch.models.event_payloads import PlannedUnit
from deepresearch.models.event_registry import Payload
from deepresearch.models.pause import InputKind, ReplyAction


class ReviewedFinding(BaseModel):
    """A verified finding shown for review before writing."""

    id: str = Field(description="the evidence id")
    claim: str = Field(description="what the finding says")
    quote: str = Field(description="the words quoted from the source")
    source_url: str
    source_title: str = Field(default="", description="the source's title, if known")
    sub_question_id: str = Field(default="", description="the sub-question it answers")


class InputRequested(Payload):
    """The run pauses for a person: a clarifying question, its plan to review, or its
    verified findings to review before writing. It is checkpointed and holds no worker;
    answer it with `deepresearch reply`, `POST .../input`, the page or the library."""

    event_type = "input_requested"
    stages = "clarify, review_plan, review_findings"
    kind: InputKind = Field(
        description="`clarification`: a question; `plan`: a plan to review; `findings`: "
        "the verified findings to review before writing"
    )
    request_id: str = Field(description="names this pause: a reply answers one pause once")
    question: str | None = Field(default=None, description="clarification: what the run asks")
    brief: str | None = Field(default=None, description="plan: the research brief")
    sub_questions: list[PlannedUnit] | None = Field(
        default=None, description="plan: the sub-questions and their searches"
    )
    scope: str | None = Field(default=None, description="plan: what the answer covers")
    evidence_strategy: str | None = Field(
        default=None, description="plan: how sources are found and checked"
    )
    output_format: str | None = Field(
        default=None, description="plan: what the report will look like"
    )
    council: list[str] | None = Field(
        default=None, description="plan: the council's decision, each round of votes, revisions"
    )
    presearch: list[str] | None = Field(
        default=None, description="plan: the pre-search results the planner was given"
    )
    findings: list[ReviewedFinding] | None = Field(
        default=None, description="findings: the verified findings the writer would get"
    )


class InputReceived(Payload):
    """The run goes on with a person's answer."""

    event_type = "input_received"
    stages = "clarify, review_plan, review_findings"
    kind: InputKind
    question: str | None = Field(default=None, description="clarification: what was asked")
    answer: str | None = Field(default=None, description="clarification: the answer")
    action: ReplyAction | None = Field(
        default=None,
        description="plan: approved as it was, or edited; findings: approved, some "
        "dropped, or a gap named",
    )
    brief: str | None = Field(default=None, description="plan: the brief researched")
    sub_questions: list[PlannedUnit] | None = Field(
        default=None,
        description="plan: the sub-questions researched; findings: the gap's sub-question",
    )
    dropped: list[str] | None = Field(
        default=None, description="findings: the evidence ids left out of the report"
    )
    gap: str | None = Field(
        default=None, description="findings: the gap researched in one more wave"
    )


class RunExpired(Payload):
    """A job that waited for input longer than `input_timeout_s` ended unanswered (the
    service's event; the job is EXPIRED)."""

    event_type = "run_expired"
