"""The payloads of a run that waits for a person (issue 15): what it asks, what it was
answered, and a waiting job that expired unanswered. Registered like the core types'."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from deepresearch.models.event_payloads import PlannedUnit
from deepresearch.models.events import Payload, register_payloads

InputKind = Literal["clarification", "plan"]


class InputRequested(Payload):
    """The run pauses for a person: a clarifying question, or its plan to review. It is
    checkpointed and holds no worker; answer it with `deepresearch reply`, `POST
    .../input`, the page or the library."""

    event_type = "input_requested"
    stages = "clarify, review_plan"
    kind: InputKind = Field(description="`clarification`: a question; `plan`: a plan to review")
    request_id: str = Field(description="names this pause: a reply answers one pause once")
    question: str | None = Field(default=None, description="clarification: what the run asks")
    brief: str | None = Field(default=None, description="plan: the research brief")
    sub_questions: list[PlannedUnit] | None = Field(
        default=None, description="plan: the sub-questions and their searches"
    )


class InputReceived(Payload):
    """The run goes on with a person's answer."""

    event_type = "input_received"
    stages = "clarify, review_plan"
    kind: InputKind
    question: str | None = Field(default=None, description="clarification: what was asked")
    answer: str | None = Field(default=None, description="clarification: the answer")
    action: Literal["approve", "edit"] | None = Field(
        default=None, description="plan: approved as it was, or edited"
    )
    brief: str | None = Field(default=None, description="plan: the brief researched")
    sub_questions: list[PlannedUnit] | None = Field(
        default=None, description="plan: the sub-questions researched"
    )


class RunExpired(Payload):
    """A job that waited for input longer than `input_timeout_s` ended unanswered (the
    service's event; the job is EXPIRED)."""

    event_type = "run_expired"


register_payloads(InputRequested)
register_payloads(InputReceived)
register_payloads(RunExpired)
