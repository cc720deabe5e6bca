"""The typed event stream. Front ends render only these (seed 004's runtime-parity rule):
if it is not in an event, it did not happen."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, JsonValue

EventType = Literal[
    "run_started",
    "run_resumed",
    "stage_started",
    "stage_completed",
    "intake_decided",
    "plan_ready",
    "council_decided",
    "wave_started",
    "search_completed",
    "sources_ranked",
    "source_fetched",
    "source_failed",
    "source_summarized",
    "evidence_added",
    "gate_evaluated",
    "reflection",
    "findings_checked",
    # a run that waits for a person (issue 15): what it asks, and the answer arriving
    "input_requested",
    "input_received",
    # recipes (seed 000, section 15): a recipe's phases, its tool calls, observations and
    # reasoning, and its routing decisions
    "phase",
    "thought",
    "phase_complete",
    "route_decided",
    "model_call",
    "model_call_waiting",
    "model_call_started",
    "warning",
    "report_ready",
    "audit_completed",
    "eval_completed",
    "run_completed",
    "run_failed",
    "run_cancelled",
    "run_expired",
]


class RunEvent(BaseModel):
    """One thing that happened in a run. ``data`` holds the numbers a front end shows;
    its keys for each type are listed in docs/events.md."""

    run_id: str
    seq: int = 0
    ts: datetime
    type: EventType
    stage: str | None = None
    message: str = ""
    data: dict[str, JsonValue] = Field(default_factory=dict)
