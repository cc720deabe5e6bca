"""Rendering the event stream in a terminal: a Rich live panel on a TTY, plain lines
otherwise, NDJSON with ``--json-events``. Only events are rendered (seed 004's parity
rule): nothing here guesses what happened.

Event text comes from the question, from pages and from models, so it is never given to
Rich as markup (only as ``Text``) and its control characters are shown escaped
(``core.sanitize.for_terminal``): a ``[bold]`` or an OSC sequence in a page title is
printed, not obeyed."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import IO

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from deepresearch.core.sanitize import for_terminal
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import (
    BudgetExhausted,
    EvidenceAdded,
    GateEvaluated,
    ModelCalled,
    ModelCallStarted,
    ModelCallWaiting,
    ModelWaitTimeoutWarning,
    PlanReady,
    Reflected,
    SourceFailed,
    SourceFetched,
    WaveStarted,
)


@dataclass(frozen=True)
class UnitLine:
    """One research unit as its event summarized it (seed 004's per-unit summary)."""

    status: str
    seconds: float | None = None
    reason: str | None = None

    def text(self) -> Text:
        took = f" {self.seconds:.1f}s" if self.seconds is not None else ""
        if self.status == "completed":
            return Text(f"done{took}")
        label = "timed out" if self.status == "timed_out" else "failed"
        return Text(f"{label}{took}", style="red")


@dataclass
class RunView:
    """What the live panel shows, folded from events."""

    stage: str = "starting"
    message: str = ""
    sub_questions: dict[str, str] = field(default_factory=dict)
    evidence_by_question: dict[str, int] = field(default_factory=dict)
    #: each sub-question's last research unit, from its ``evidence_added`` summary:
    #: how it ended ("completed", "failed", "timed_out"), why not, how long it ran
    units: dict[str, UnitLine] = field(default_factory=dict)
    sources_read: int = 0
    sources_failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    gate: str = ""
    wave: int = 0
    waiting: dict[str, int] = field(default_factory=dict)
    """Model calls waiting for a free slot, by endpoint label."""
    waiting_roles: dict[str, set[str]] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    cost_usd: float = 0.0
    #: the latest spend against the run's budgets (``model_call``'s ``budget``)
    budget: dict[str, object] = field(default_factory=dict)
    budget_note: str = ""

    def apply(self, event: RunEvent) -> None:
        if event.stage:
            self.stage = event.stage
        if event.message:
            self.message = event.message
        match event.data:
            case PlanReady(sub_questions=units) | Reflected(queued=units):
                for unit in units:
                    self.sub_questions[unit.id] = unit.text
            case WaveStarted(wave=wave):
                self.wave = wave
            case SourceFetched():
                self.sources_read += 1
            case SourceFailed():
                self.sources_failed += 1
            case EvidenceAdded() as added:
                self.evidence_by_question[added.sub_question] = added.count
                self.units[added.sub_question] = UnitLine(
                    added.status, added.duration_s, added.failure_reason
                )
            case ModelCalled(input_tokens=input_tokens, output_tokens=output_tokens):
                self.model_calls += 1
                self.input_tokens += input_tokens
                self.output_tokens += output_tokens
                self.cost_usd += event.data.cost_usd or 0.0
                if event.data.budget is not None:
                    self.budget = dict(event.data.budget)
            case BudgetExhausted():
                self.budget_note = event.message
            case GateEvaluated(status=status):
                self.gate = status
            case ModelCallWaiting() | ModelCallStarted() | ModelWaitTimeoutWarning():
                self._queue(event.data)

    def _queue(self, data: ModelCallWaiting | ModelCallStarted | ModelWaitTimeoutWarning) -> None:
        """Each queue event carries the endpoint's current count of waiting calls."""
        endpoint = data.endpoint or "the model"
        self.waiting[endpoint] = data.waiting
        roles = self.waiting_roles.setdefault(endpoint, set())
        if isinstance(data, ModelCallWaiting):
            roles.add(data.role)
        if data.waiting == 0:
            roles.clear()

    def waiting_lines(self) -> list[str]:
        """``"3 calls waiting for 127.0.0.1:8080 (judge, summarizer)"``, one per endpoint."""
        lines = []
        for endpoint, count in sorted(self.waiting.items()):
            if count <= 0:
                continue
            calls = "call" if count == 1 else "calls"
            roles = ", ".join(sorted(r for r in self.waiting_roles.get(endpoint, ()) if r))
            lines.append(
                f"{count} {calls} waiting for {endpoint}" + (f" ({roles})" if roles else "")
            )
        return lines

    def render(self) -> Group:
        elapsed = time.monotonic() - self.started
        head = Text.assemble(
            ("deepresearch ", "bold"),
            (for_terminal(self.stage), "cyan"),
            (f"  wave {self.wave}" if self.wave else ""),
            (f"  gate {for_terminal(self.gate)}" if self.gate else ""),
            f"  {elapsed:5.1f}s",
        )
        table = Table(show_header=True, header_style="bold", expand=True, box=None)
        table.add_column("#", width=4)
        table.add_column("sub-question", ratio=1)
        table.add_column("quotes", justify="right", width=7)
        table.add_column("unit", width=16)
        for sq_id, text in self.sub_questions.items():
            count = self.evidence_by_question.get(sq_id)
            unit = self.units.get(sq_id)
            table.add_row(
                _text(sq_id),
                _text(text),
                Text("…" if count is None else str(count)),
                unit.text() if unit is not None else Text(""),
            )
        totals = Text(
            f"sources read {self.sources_read} (failed {self.sources_failed})   "
            f"verified quotes {sum(self.evidence_by_question.values())}   "
            f"model calls {self.model_calls}   tokens {self.input_tokens}+{self.output_tokens}"
            f"   cost ${self.cost_usd:.4f}",
            style="dim",
        )
        failed = [Text(line, style="red") for line in self.failure_lines()]
        queue = [Text(line, style="yellow") for line in self.waiting_lines()]
        budget = [Text(line, style="yellow") for line in self.budget_lines()]
        return Group(
            head,
            table,
            totals,
            *failed,
            *budget,
            *queue,
            Text(for_terminal(self.message), style="italic"),
        )

    def failure_lines(self) -> list[str]:
        """``"s2 research unit timed out (30.0 s)"``, one per sub-question whose last unit
        failed, from the units' events only (seed 004's parity rule)."""
        return [
            for_terminal(f"{sq_id} {unit.reason or unit.status}")
            + (f" ({unit.seconds:.1f} s)" if unit.seconds is not None else "")
            for sq_id, unit in self.units.items()
            if unit.status != "completed"
        ]

    def budget_lines(self) -> list[str]:
        """``"budget: tokens 1,200 of 5,000   $0.0031 of $0.5000"`` while a budget is set;
        the message of the one that ended the run once it has."""
        if self.budget_note:
            return [for_terminal(self.budget_note)]
        spend, parts = self.budget, []
        if spend.get("max_tokens") is not None:
            parts.append(f"tokens {_int(spend.get('tokens')):,} of {_int(spend['max_tokens']):,}")
        if spend.get("max_cost_usd") is not None:
            parts.append(
                f"${_num(spend.get('cost_usd')):.4f} of ${_num(spend['max_cost_usd']):.4f}"
            )
        if spend.get("max_time_s") is not None:
            parts.append(f"{_num(spend.get('elapsed_s')):.0f} s of {_num(spend['max_time_s']):g} s")
        return ["budget: " + "   ".join(parts)] if parts else []


def _text(value: str) -> Text:
    """Untrusted text as a Rich ``Text``: literal (no markup), control characters escaped."""
    return Text(for_terminal(value))


class Renderer:
    """Chooses how to show events: live panel, plain lines, or NDJSON on stdout."""

    def __init__(self, *, json_events: bool, stream: IO[str] | None = None) -> None:
        self.json_events = json_events
        self.stream = stream or sys.stderr
        self.view = RunView()
        self.console = Console(file=self.stream, stderr=self.stream is sys.stderr)
        self.live: Live | None = None
        if not json_events and self.console.is_terminal:
            self.live = Live(
                self.view.render(), console=self.console, refresh_per_second=8, transient=False
            )

    def __enter__(self) -> Renderer:
        if self.live is not None:
            self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.update(self.view.render())
            self.live.__exit__(None, None, None)

    def __call__(self, event: RunEvent) -> None:
        self.view.apply(event)
        if self.json_events:
            sys.stdout.write(event.model_dump_json() + "\n")
            sys.stdout.flush()
        elif self.live is not None:
            self.live.update(self.view.render())
        elif event.type not in ("model_call", "model_call_started"):
            stage = f"[{event.stage}] " if event.stage else ""
            self.stream.write(for_terminal(f"{stage}{event.message or event.type}") + "\n")
            self.stream.flush()


def _num(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0
