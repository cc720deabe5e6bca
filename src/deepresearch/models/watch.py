"""Watches (issue 25, docs/watches.md): a question re-run on a schedule, and what changed
between two of its runs. Plain data: the schedule's rules are ``core/watch_schedule.py``,
the comparison ``core/watch_changes.py``, the store ``service/store/watches.py``."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

WatchState = Literal["active", "paused"]
WATCH_STATES: tuple[WatchState, ...] = ("active", "paused")

#: what adding a watch takes besides its question, in every front end (CLI options, the
#: Python ``add``, MCP's ``add_watch``; the API's body carries ``depth`` in ``options``):
#: one list a test checks them against
WATCH_ADD_OPTIONS = ("every", "cron", "depth", "thread", "webhook")


class Watch(BaseModel):
    """One watch as stored: whose it is, what it asks, when, and where it stands."""

    model_config = ConfigDict(frozen=True)

    id: str
    owner: str
    question: str
    schedule: str = Field(description="'every 1d' or a cron expression")
    options: dict[str, object] = Field(default_factory=dict)
    state: WatchState = "active"
    thread: str | None = Field(
        default=None, description="the run the next run is compared with (the last finished)"
    )
    next_due: datetime
    last_run: str | None = Field(default=None, description="the job its last due time started")
    last_run_at: datetime | None = None
    webhook_url: str | None = Field(default=None, description="where change reports are POSTed")
    #: the key the webhook's body is signed with; never shown but once, when added
    webhook_secret: str | None = Field(default=None, exclude=True, repr=False)
    created_at: datetime
    deferred_until: datetime | None = Field(
        default=None,
        description="the due time is held back by the key's submission rate limit until then",
    )
    deferred_reason: str | None = Field(default=None, description="why it is held back")


DeliveryStatus = Literal["pending", "delivered", "failed"]


class WebhookDelivery(BaseModel):
    """Where one change report's webhook delivery stands (the outbox's row)."""

    model_config = ConfigDict(frozen=True)

    status: DeliveryStatus
    attempts: int = Field(description="POSTs tried so far")
    next_attempt_at: datetime | None = Field(default=None, description="while pending")
    last_error: str | None = Field(default=None, description="what the last attempt met")
    delivered_at: datetime | None = None


class WatchFinding(BaseModel):
    """A verified finding as a watch compares it: its claim, its quote and where and when
    the quote was read."""

    model_config = ConfigDict(frozen=True)

    claim: str
    quote: str
    source_url: str
    fetched_at: datetime | None = None


class Contradiction(BaseModel):
    """A claim of a run with the findings that support it and those that contradict it."""

    model_config = ConfigDict(frozen=True)

    claim: str
    supported_by: tuple[WatchFinding, ...] = ()
    contradicted_by: tuple[WatchFinding, ...] = ()


class WatchSnapshot(BaseModel):
    """What one finished run of a watch found: its verified findings, the pages it read
    and the contradictions its claims carry."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    finished_at: datetime | None = None
    findings: tuple[WatchFinding, ...] = ()
    sources: tuple[str, ...] = Field(default=(), description="the URLs the run read")
    contradictions: tuple[Contradiction, ...] = ()


class ChangedFinding(BaseModel):
    """An earlier finding that no longer holds: its quote is gone from the page that was
    read again, or a claim of the new run is contradicted."""

    model_config = ConfigDict(frozen=True)

    finding: WatchFinding
    reason: Literal["gone_from_page", "contradicted"]
    contradicted_by: tuple[WatchFinding, ...] = ()


class SourceChange(BaseModel):
    """A page that one run read and the other did not, with its findings."""

    model_config = ConfigDict(frozen=True)

    url: str
    fetched_at: datetime | None = None
    findings: tuple[WatchFinding, ...] = ()


class ChangeReport(BaseModel):
    """What changed between a watch's previous run and this one."""

    model_config = ConfigDict(frozen=True)

    watch_id: str
    question: str
    run_id: str
    previous_run: str | None = Field(default=None, description="None: the watch's first run")
    created_at: datetime
    new_findings: tuple[WatchFinding, ...] = ()
    changed_findings: tuple[ChangedFinding, ...] = ()
    new_sources: tuple[SourceChange, ...] = ()
    vanished_sources: tuple[SourceChange, ...] = ()
    error: str | None = Field(default=None, description="the run did not finish: why")

    @property
    def unchanged(self) -> bool:
        return not (
            self.error
            or self.new_findings
            or self.changed_findings
            or self.new_sources
            or self.vanished_sources
        )
