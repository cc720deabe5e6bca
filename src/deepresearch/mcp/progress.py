"""MCP progress notifications from a run's events. Pure.

A notification's progress must grow with every notification, so the value is the run's
progress (the service's rule, ``service.jobs.progress_after``) in percent, nudged up by a
hundredth when an event moves the counts but not the stage. The message says where the
run is and what it has found: stage, wave, sources read, verified quotes."""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.models import RunEvent
from deepresearch.service.jobs import progress_after, stage_after

TOTAL = 100.0
#: events that say nothing a person waiting for the report needs (model calls, thoughts)
QUIET = frozenset({"model_call", "thought", "source_summarized", "search_completed"})
STEP = 0.01


@dataclass(frozen=True)
class Notice:
    progress: float
    total: float
    message: str


@dataclass
class ProgressTracker:
    """Folds a run's events into its progress; ``update`` returns a notice to send."""

    run_id: str = ""
    fraction: float = 0.0
    stage: str | None = None
    wave: int = 0
    sources_read: int = 0
    evidence: int = 0
    sent: float = -1.0

    def update(self, event: RunEvent) -> Notice | None:
        data = event.data
        self.run_id = self.run_id or event.run_id
        self.fraction = progress_after(event.type, event.stage, data, self.fraction)
        self.stage = stage_after(event.type, event.stage, self.stage)
        wave = getattr(data, "wave", None)
        if isinstance(wave, int) and not isinstance(wave, bool):
            self.wave = max(self.wave, wave)
        if event.type == "source_fetched":
            self.sources_read += 1
        elif event.type == "evidence_added":
            count = getattr(data, "count", None)
            self.evidence += count if isinstance(count, int) else 0
        if event.type in QUIET:
            return None
        done = event.type == "run_completed"
        value = TOTAL if done else min(max(self.fraction * TOTAL, self.sent + STEP), TOTAL - STEP)
        value = round(value, 2)
        if value <= self.sent:
            return None
        self.sent = value
        return Notice(value, TOTAL, self.describe(event))

    def describe(self, event: RunEvent) -> str:
        where = "done" if event.type == "run_completed" else (self.stage or "starting")
        if self.wave and where in ("research", "gate", "reflect"):
            where += f", wave {self.wave}"
        found = f"{self.sources_read} sources read, {self.evidence} verified quotes"
        text = " ".join(event.message.split()) or event.type.replace("_", " ")
        return f"[{where}] {text} ({found}; run {self.run_id})"
