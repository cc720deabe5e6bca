"""What a job is, as the service sees it: states, the row as a value, and the pure rules
(progress per stage, submission decisions) the store and the routes apply."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from deepresearch.models import Evidence, Report

JobStatus = Literal["QUEUED", "RUNNING", "COMPLETED", "FAILED", "CANCELLED", "EXPIRED"]
STATUSES: tuple[JobStatus, ...] = (
    "QUEUED",
    "RUNNING",
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "EXPIRED",
)
ACTIVE: frozenset[str] = frozenset({"QUEUED", "RUNNING"})
TERMINAL: frozenset[str] = frozenset({"COMPLETED", "FAILED", "CANCELLED", "EXPIRED"})
TERMINAL_EVENT = {
    "COMPLETED": "run_completed",
    "FAILED": "run_failed",
    "CANCELLED": "run_cancelled",
}
TERMINAL_EVENTS: frozenset[str] = frozenset(TERMINAL_EVENT.values())

#: how far along a run is when a stage starts (seed 003's progress 0-1)
STAGE_PROGRESS = {
    "intake": 0.02,
    "plan": 0.08,
    "research": 0.15,
    "gate": 0.7,
    "reflect": 0.72,
    "write": 0.75,
    "abort": 0.75,
    "respond": 0.75,
    "audit": 0.9,
}


@dataclass(frozen=True)
class Job:
    id: str
    owner: str
    status: JobStatus
    stage: str | None
    progress: float
    question: str
    recipe: str
    options: dict[str, Any]
    idempotency_key: str | None
    request_hash: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    expires_at: datetime | None
    updated_at: datetime
    attempts: int
    lease_owner: str | None
    lease_expires_at: datetime | None
    cancel_requested: bool
    error: str | None
    counts: dict[str, int]
    usage: dict[str, int]

    @property
    def active(self) -> bool:
        return self.status in ACTIVE


@dataclass(frozen=True)
class Outcome:
    """What a finished job stores: its document (the report, or the employer result) as
    JSON, its markdown, and the report itself when there is one (for the sources rows)."""

    kind: str
    document: dict[str, Any]
    markdown: str
    evidence: list[Evidence]
    report: Report | None = None


@dataclass(frozen=True)
class Submission:
    """What ``JobStore.submit`` did: ``created`` a new job, returned the one an
    Idempotency-Key already made (``replayed``), or ``attached`` to the caller's active run."""

    job: Job
    created: bool = False
    replayed: bool = False
    attached: bool = False


def request_hash(question: str, recipe: str, options: dict[str, Any]) -> str:
    """A fingerprint of a submission's body, to tell an idempotent retry from a new request."""
    body = json.dumps(
        {"question": question, "recipe": recipe, "options": options},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(body.encode()).hexdigest()


def progress_after(event_type: str, stage: str | None, current: float) -> float:
    """The job's progress after an event: stages move it forward, never back."""
    if event_type == "run_completed":
        return 1.0
    if event_type == "wave_started":
        return max(current, min(current + 0.1, 0.65))
    if event_type in ("stage_started", "stage_completed") and stage in STAGE_PROGRESS:
        return max(current, STAGE_PROGRESS[stage])
    return current


def count_updates(event_type: str, data: dict[str, Any]) -> dict[str, int]:
    """What an event adds to the job's running counts (the final counts come from the
    report when the job completes)."""
    if event_type == "source_fetched":
        return {"sources_fetched": 1}
    if event_type == "source_failed":
        return {"sources_failed": 1}
    if event_type == "evidence_added":
        count = data.get("count", 0)
        return {"evidence": count if isinstance(count, int) else 0}
    if event_type == "model_call":
        return {"model_calls": 1}
    if event_type == "search_completed":
        return {"searches": 1}
    return {}
