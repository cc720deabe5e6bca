"""What a paused run asks a person (issue 15), and what a person may answer to a plan, to
the findings shown before writing, or to the finished report (issue 28)."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

#: what a paused run may ask: the one list of pause kinds
InputKind = Literal["clarification", "plan", "findings", "report"]
INPUT_KINDS: tuple[InputKind, ...] = get_args(InputKind)
#: what a person may answer to a plan, to the findings and to the finished report; a
#: reply's action is one of them
PlanAction = Literal["approve", "edit"]
FindingsAction = Literal["approve", "drop", "gap"]
ReportAction = Literal["approve", "edit", "feedback"]
ReplyAction = Literal[PlanAction, FindingsAction, ReportAction]


class PlanItem(BaseModel):
    """One sub-question of a plan shown for review."""

    id: str
    text: str
    queries: list[str] = Field(default_factory=list)


class FindingItem(BaseModel):
    """One verified finding shown for review before writing."""

    id: str = Field(description="the evidence id: drop it by this id")
    claim: str
    quote: str = Field(description="the words quoted from the source")
    source_url: str
    source_title: str = ""
    sub_question_id: str = ""


class SentenceItem(BaseModel):
    """One sentence of the finished report shown for review: edit it by its id."""

    id: str = Field(description="the sentence's id: edit it by this id")
    section: str = Field(description="the heading of its section (Summary for the summary)")
    text: str
    sources: list[int] = Field(
        default_factory=list, description="the numbers [n] of the sources it cites"
    )
    audit: str | None = Field(default=None, description="the audit's verdict, when checked")


class InputRequest(BaseModel):
    """A run waiting for a person: a clarifying question, a plan to review, the verified
    findings to review before writing, or the finished report to review. ``id`` names this pause (a reply answers
    one pause once); ``run_id`` the run that waits."""

    run_id: str
    id: str
    kind: InputKind
    question: str = Field(default="", description="clarification: what the run asks")
    brief: str = Field(default="", description="plan: the research brief")
    sub_questions: list[PlanItem] = Field(default_factory=list, description="plan")
    scope: str = Field(default="", description="plan: what the answer covers")
    evidence_strategy: str = Field(default="", description="plan: how sources are found, checked")
    output_format: str = Field(default="", description="plan: what the report will look like")
    council: list[str] = Field(
        default_factory=list, description="plan: the council's decision, votes and revisions"
    )
    presearch: list[str] = Field(
        default_factory=list, description="plan: the pre-search results the planner was given"
    )
    findings: list[FindingItem] = Field(default_factory=list, description="findings")
    title: str = Field(default="", description="report: the report's title")
    sentences: list[SentenceItem] = Field(
        default_factory=list, description="report: its sentences a person may edit"
    )
    rewrite: bool = Field(
        default=False,
        description="report: feedback may ask for one rewrite (the run has a writer model)",
    )

    def outline_lines(self) -> list[str]:
        """A plan's scope, evidence strategy and output format (seed 004), then the
        council's record and the pre-search's results the planner read, as lines every
        front end shows under the brief (empty: not a plan, or a pause from before them)."""
        named = (
            ("Scope", self.scope),
            ("Evidence strategy", self.evidence_strategy),
            ("Output format", self.output_format),
        )
        searched = [f"Pre-search: {line}" for line in self.presearch]
        return [f"{name}: {text}" for name, text in named if text] + list(self.council) + searched

    def event_data(self) -> dict[str, Any]:
        """The ``input_requested`` event's data (``models.event_pauses.InputRequested``)."""
        data: dict[str, Any] = {"kind": self.kind, "request_id": self.id}
        if self.kind == "clarification":
            data["question"] = self.question
        elif self.kind == "findings":
            data["findings"] = [item.model_dump() for item in self.findings]
        elif self.kind == "report":
            data["title"] = self.title
            data["sentences"] = [item.model_dump() for item in self.sentences]
            data["rewrite"] = self.rewrite
        else:
            data["brief"] = self.brief
            data["sub_questions"] = [item.model_dump() for item in self.sub_questions]
            data["scope"] = self.scope
            data["evidence_strategy"] = self.evidence_strategy
            data["output_format"] = self.output_format
            data["council"] = list(self.council)
            data["presearch"] = list(self.presearch)
        return data


class PlanReply(BaseModel):
    """A person's decision on a plan: approve it as it is, or edit it (the brief and/or the
    sub-questions, given whole: each kept, reworded or new one, in order). Cancelling is
    not a reply: a front end cancels the run (the service's cancel, the CLI's stop)."""

    model_config = ConfigDict(extra="forbid")

    action: PlanAction = "approve"
    brief: str | None = Field(default=None, description="edit: the new brief")
    sub_questions: list[str] | None = Field(
        default=None, description="edit: every sub-question, 1-8, in order"
    )


class FindingsReply(BaseModel):
    """A person's decision on the findings before writing: approve them, ``drop`` some
    (their evidence ids: they never reach the writer nor the report), or name a ``gap``
    (researched in one more wave, then the run writes without asking again). A drop may
    name a gap too, and a gap may drop findings. Cancelling is not a reply, as for a
    plan."""

    model_config = ConfigDict(extra="forbid")

    action: FindingsAction = "approve"
    drop: list[str] | None = Field(default=None, description="evidence ids to leave out")
    gap: str | None = Field(default=None, description="what is missing: one more wave")


class ReportReply(BaseModel):
    """A person's decision on the finished report: approve it; ``edit`` sentences (by the
    ids shown: new words, each audited against the sentence's own citations like the
    writer's, or empty text to remove it); or ``feedback`` for one rewrite by the writer
    model (refused when the run has none: nothing is applied and the run keeps waiting).
    Cancelling is not a reply, as for a plan."""

    model_config = ConfigDict(extra="forbid")

    action: ReportAction = "approve"
    sentences: dict[str, str] | None = Field(
        default=None, description="edit: sentence id -> its new words ('' removes it)"
    )
    feedback: str | None = Field(default=None, description="feedback: what to change")
