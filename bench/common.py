"""What every benchmark shares: options, results, the data folder, and small stats helpers."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.models import Report

#: ``../shared/data`` beside the repository checkout.
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"

ParamValue = str | int | float | bool | list[str] | list[int] | None


class DataMissing(RuntimeError):
    """The shared data a benchmark needs is not where it should be."""


@dataclass(frozen=True)
class Options:
    """Knobs of one harness run (the command-line flags of ``bench.run``)."""

    data_dir: Path = DEFAULT_DATA_DIR
    latency_s: float = 0.5
    per_token_s: float = 0.01
    questions: int = 5
    ranking_questions: int = 100
    depths: tuple[str, ...] = ("quick", "standard")
    quotes: int = 300
    pages: int | None = None
    warmup: bool = True
    #: fetch_extract: pages in flight at each level
    concurrency: tuple[int, ...] = (1, 4, 16)
    #: scaling: (max_sub_questions, sources_per_question) per size
    scaling_sizes: tuple[tuple[int, int], ...] = ((2, 3), (4, 5), (8, 8))
    scaling_questions: int = 3
    retrieval_questions: int = 100
    #: service_load: max_concurrent_jobs levels, SSE clients, the smoke test's tiny run
    service_levels: tuple[int, ...] = (1, 3, 6, 10, 20, 40)
    sse_clients: int = 100
    service_quick: bool = False
    #: injection: real documents to scan (None: all 11,838)
    injection_docs: int | None = None
    #: employer_metrics: companies to research (None: all; the posting case always runs)
    employer_companies: int | None = None
    #: startup: timed processes per case (after one warm-up)
    startup_runs: int = 10
    #: wide: broad questions on Vital topics and on FreshWiki articles
    wide_topics: int = 12
    wide_events: int = 5
    #: workers: worker processes per level, and the jobs each level runs
    worker_processes: tuple[int, ...] = (1, 2, 4)
    worker_jobs: int = 24


@dataclass(frozen=True)
class Figure:
    """One measured number and its unit."""

    value: float
    unit: str

    def as_json(self) -> dict[str, float | str]:
        return {"value": self.value, "unit": self.unit}


@dataclass
class BenchResult:
    """The figures of one benchmark, the parameters they were measured with, and notes."""

    figures: dict[str, Figure] = field(default_factory=dict)
    params: dict[str, ParamValue] = field(default_factory=dict)
    notes: str = ""

    def add(self, name: str, value: float, unit: str, *, digits: int = 4) -> None:
        self.figures[name] = Figure(round(float(value), digits), unit)

    def as_json(self) -> dict[str, object]:
        return {
            "figures": {name: figure.as_json() for name, figure in self.figures.items()},
            "params": dict(self.params),
            "notes": self.notes,
        }


def require(path: Path) -> Path:
    """``path`` if it exists, else DataMissing naming where it was looked for."""
    if not path.exists():
        raise DataMissing(f"shared data not found: {path}")
    return path


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean, 0.0 for no values."""
    return statistics.fmean(values) if values else 0.0


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (0..1) by linear interpolation, 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def finished(outcome: object, question_id: str) -> Report:
    """The report of a run that must have finished: a benchmark run never pauses to ask a
    person (no clarification, no review), so a pause or nothing is an error."""
    if not isinstance(outcome, Report):
        raise RuntimeError(f"the run for {question_id} paused without a report")
    return outcome
