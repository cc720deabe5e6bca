"""What a job is, as the service sees it: states, the row as a value, and the pure rules
(progress per stage, submission decisions) the store and the routes apply."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from deepresearch.models import Evidence, Report
from deepresearch.models.event_checks import FollowupStarted
from deepresearch.models.event_payloads import (
    EvidenceAdded,
    ModelCalled,
    RunCompleted,
    SearchCompleted,
    SourceFailed,
    SourceFetched,
    WaveStarted,
)
from deepresearch.models.events import Payload

JobStatus = Literal[
    "QUEUED", "RUNNING", "AWAITING_INPUT", "COMPLETED", "FAILED", "CANCELLED", "EXPIRED"
]
STATUSES: tuple[JobStatus, ...] = (
    "QUEUED",
    "RUNNING",
    "AWAITING_INPUT",
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "EXPIRED",
)
#: a job AWAITING_INPUT (a person's answer) is neither: it holds no worker slot and no
#: lease, and does not count against its key's active runs; an answer queues it again
ACTIVE: frozenset[str] = frozenset({"QUEUED", "RUNNING"})
#: a finished job's status and the event that ends its stream: the one list of terminal
#: statuses and events (the page's copies in app.js, sse.js and watch.js are checked
#: against it by tests/web/test_shared_lists.py). ``run_expired``: a job that waited for
#: input longer than ``input_timeout_s``
TERMINAL_EVENT = {
    "COMPLETED": "run_completed",
    "FAILED": "run_failed",
    "CANCELLED": "run_cancelled",
    "EXPIRED": "run_expired",
}
TERMINAL: frozenset[str] = frozenset(TERMINAL_EVENT)
#: the problem type of an answer of the wrong kind (text to a plan review...): its
#: ``hint`` is the API's JSON, which a client may say in its own words
WRONG_REPLY = "wrong-reply"
TERMINAL_EVENTS: frozenset[str] = frozenset(TERMINAL_EVENT.values())

#: how far along a run is when a stage starts (seed 003's progress 0-1); the research
#: stage moves on from its start as its waves' units finish (``research_progress``), and
#: the gate and reflection between waves keep where the last wave got to
STAGE_PROGRESS = {
    "followup": 0.01,  # a follow-up reads its thread first
    "intake": 0.02,
    "clarify": 0.02,  # waiting for the answer to intake's question
    "plan": 0.08,
    "review_plan": 0.1,  # waiting for the plan's review
    "library": 0.12,  # the owner's library, before the first wave
    "council": 0.1,  # the plan stage's council, when it sits
    "research": 0.15,
    "answer": 0.5,  # --search none: the model's answer instead of research
    "check_findings": 0.72,
    "review_findings": 0.74,  # waiting for the findings' review
    "write": 0.75,
    "abort": 0.75,
    "audit": 0.9,
    "review_report": 0.92,  # waiting for the report's review
    "audit_edits": 0.93,  # the review's edits audited
    "figures": 0.94,  # figures from the cited pages (issue 26)
    "evaluate": 0.95,
}
RESEARCH_END = 0.7
#: the run graph's nodes: an event of one of them means the run is in it
RUN_STAGES = frozenset({*STAGE_PROGRESS, "gate", "reflect"})


@dataclass(frozen=True)
class ThreadPlace:
    """Where a follow-up stands in its thread: the thread's first run, its turn (2, 3 ...),
    the run it follows up and whether it changed topic."""

    root: str
    turn: int
    follows: str
    topic_shift: bool


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
    #: a follow-up's place in its thread (None for a thread's first run; ``ThreadPlace``)
    place: ThreadPlace | None = None

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
    #: the terminal event's payload when the run's own run_completed was not held
    completed: RunCompleted | None = None


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


def stage_after(event_type: str, stage: str | None, current: str | None) -> str | None:
    """The job's stage after an event: the run graph's node it came from (a research
    unit's model call or warning comes from the research node, whatever sub-step it names),
    or a recipe's phase as it starts."""
    if stage and (stage in RUN_STAGES or event_type in ("stage_started", "phase")):
        return stage
    return current


def research_progress(wave: int, done: int, units: int, max_waves: int) -> float:
    """Progress through the research stage when ``done`` of a wave's ``units`` are done.
    Each wave gets half the share of the one before (most runs end after one or two),
    out of at most ``max_waves``."""
    max_waves = max(max_waves, wave, 1)
    shares = [0.5**k for k in range(max_waves)]
    within = min(max(done / units, 0.0), 1.0) if units > 0 else 1.0
    fraction = (sum(shares[: wave - 1]) + shares[wave - 1] * within) / sum(shares)
    start = STAGE_PROGRESS["research"]
    return start + (RESEARCH_END - start) * fraction


def progress_after(event_type: str, stage: str | None, data: Payload, current: float) -> float:
    """The job's progress after an event: it moves forward, never back."""
    if event_type == "run_completed":
        return 1.0
    if stage in STAGE_PROGRESS:
        current = max(current, STAGE_PROGRESS[stage])
    match data:
        case WaveStarted(wave=wave, units=units, max_waves=max_waves) if wave:
            return max(current, research_progress(wave, 0, len(units), max_waves or wave))
        case EvidenceAdded(wave=wave, done=done, units=units, max_waves=max_waves) if (
            wave and units
        ):
            return max(current, research_progress(wave, done, units, max_waves or wave))
    return current


def count_updates(data: Payload) -> dict[str, int]:
    """What an event adds to the job's running counts (the final counts come from the
    report when the job completes)."""
    match data:
        case SourceFetched():
            return {"sources_fetched": 1}
        case SourceFailed():
            return {"sources_failed": 1}
        case EvidenceAdded(count=count):
            return {"evidence": count}
        case ModelCalled():
            return {"model_calls": 1}
        case SearchCompleted():
            return {"searches": 1}
    return {}


def place_of(data: Payload | Report | None) -> ThreadPlace | None:
    """A follow-up's place in its thread, from its ``followup_started`` event or from the
    report that answers it; None for anything else."""
    if isinstance(data, Report):
        info = data.followup
        if info is None:
            return None
        return ThreadPlace(info.root, info.turn, info.follows, info.topic_shift)
    if isinstance(data, FollowupStarted):
        return ThreadPlace(data.root, data.turn, data.follows, data.topic_shift)
    return None


def usage_updates(data: Payload) -> dict[str, int]:
    """What an event adds to the job's usage: a model call, its tokens."""
    if isinstance(data, ModelCalled):
        return {"calls": 1, "input_tokens": data.input_tokens, "output_tokens": data.output_tokens}
    return {}
