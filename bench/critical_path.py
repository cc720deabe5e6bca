"""The critical path of a run's model calls, from its ``model_call`` events.

Each call is an interval: it ends at its event's timestamp and started ``latency_s``
earlier (the gateway's measured latency). Two calls are sequential when one ends before
the other starts; the critical path is the chain of sequential calls with the largest
total simulated latency (weighted interval scheduling: non-overlapping intervals are
totally ordered by time, so the best chain is found with one sort and a binary search per
call). Its total is the *ideal* time: what the run would take if everything but the
model's own latency were free and every parallel call truly ran in parallel.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import ModelCalled

#: clock jitter allowed between one call's end and the next call's start, in seconds
TOLERANCE_S = 0.002


@dataclass(frozen=True)
class CallInterval:
    """One model call on the run's timeline (seconds since the epoch)."""

    start: float
    end: float
    #: what the call "should" cost: the scripted latency plus per-token time
    weight: float
    stage: str = ""


@dataclass(frozen=True)
class CriticalPath:
    """The longest chain of sequential model calls."""

    calls: tuple[CallInterval, ...]

    @property
    def ideal_s(self) -> float:
        return sum(call.weight for call in self.calls)

    @property
    def stages(self) -> list[str]:
        return [call.stage for call in self.calls]

    def seconds_by_stage(self) -> dict[str, float]:
        """The chain's weight summed per stage: where the ideal time goes."""
        totals: dict[str, float] = {}
        for call in self.calls:
            totals[call.stage] = totals.get(call.stage, 0.0) + call.weight
        return totals


def call_intervals(
    events: Sequence[RunEvent], *, latency_s: float, per_token_s: float
) -> list[CallInterval]:
    """The ``model_call`` events as intervals, weighted by the scripted delay
    (``latency_s + per_token_s * output_tokens``, as ``ScriptedChatModel`` sleeps)."""
    intervals = []
    for event in events:
        if not isinstance(event.data, ModelCalled):
            continue
        measured = event.data.latency_s
        output_tokens = event.data.output_tokens
        end = event.ts.timestamp()
        intervals.append(
            CallInterval(
                start=end - measured,
                end=end,
                weight=latency_s + per_token_s * output_tokens,
                stage=event.stage or "",
            )
        )
    return intervals


def critical_path(
    calls: Sequence[CallInterval], *, tolerance_s: float = TOLERANCE_S
) -> CriticalPath:
    """The chain of calls, each starting after the previous one ended, of largest total
    weight (ties: more calls). ``O(n log n)``."""
    ordered = sorted(calls, key=lambda call: (call.end, call.start))
    ends = [call.end for call in ordered]
    # best[i]: (weight, count, chain) of the best chain among ordered[:i]
    best: list[tuple[float, int, tuple[CallInterval, ...]]] = [(0.0, 0, ())]
    for i, call in enumerate(ordered):
        before = bisect.bisect_right(ends, call.start + tolerance_s, 0, i)
        weight, count, chain = best[before]
        with_call = (weight + call.weight, count + 1, (*chain, call))
        without = best[i]
        best.append(max(with_call, without, key=lambda item: (item[0], item[1])))
    return CriticalPath(calls=best[-1][2])
