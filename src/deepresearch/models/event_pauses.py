"""The payloads of a run that waits for a person (issue 15): what it asks, what it was
answered, the audit of a reviewed report's edits (issue 28), and a waiting job that
expired unanswered. Registered like the core types'."""

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


class ReviewedSentence(BaseModel):
    """A sentence of the finished report shown for review."""

    id: str = Field(description="the sentence's id: edit it by this id")
    section: str = Field(description="the heading it is under (Summary for the summary)")
    text: str
    sources: list[int] = Field(default_factory=list, description="the source numbers it cites")
    audit: str | None = Field(default=None, description="the audit's verdict, when checked")


class InputRequested(Payload):
    """The run pauses for a person: a clarifying question, its plan to review, its
    verified findings to review before writing, or its finished report to review. It is
    checkpointed and holds no worker; answer it with `deepresearch reply`,
    `POST .../input`, the page or the library."""

    event_type = "input_requested"
    stages = "clarify, review_plan, review_findings, review_report"
    kind: InputKind = Field(
        description="`clarification`: a question; `plan`: a plan to review; `findings`: "
        "the verified findings to review before writing; `report`: the finished report"
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
    title: str | None = Field(default=None, description="report: the report's title")
    sentences: list[ReviewedSentence] | None = Field(
        default=None, description="report: the sentences a person may edit"
    )
    rewrite: bool | None = Field(
        default=None, description="report: feedback may ask the writer model for one rewrite"
    )


class InputReceived(Payload):
    """The run goes on with a person's answer."""

    event_type = "input_received"
    stages = "clarify, review_plan, review_findings, review_report"
    kind: InputKind
    question: str | None = Field(default=None, description="clarification: what was asked")
    answer: str | None = Field(default=None, description="clarification: the answer")
    action: ReplyAction | None = Field(
        default=None,
        description="plan: approved as it was, or edited; findings: approved, some "
        "dropped, or a gap named; report: approved, sentences edited, or feedback given",
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
    edited: list[str] | None = Field(
        default=None, description="report: the ids of the sentences edited or removed"
    )
    feedback: str | None = Field(
        default=None, description="report: the feedback the writer rewrites the report with"
    )


class EditsAudited(Payload):
    """The sentences a person edited in the report's review, audited against their own
    citations like the writer's (the same checks and policy)."""

    event_type = "edits_audited"
    stages = "audit_edits"
    edited: int = Field(description="sentences given new words, audited again")
    removed_by_person: int = Field(description="sentences the person removed")
    supported: int = 0
    partial: int = 0
    unsupported: int = 0
    uncited: int = Field(default=0, description="edits stating a fact with no citation")
    removed: int = Field(description="edits the audit removed (strict)")


class RunExpired(Payload):
    """A job that waited for input longer than `input_timeout_s` ended unanswered (the
    service's event; the job is EXPIRED)."""

    event_type = "run_expired"
