"""Claim and job confidence (seed 003, ClaimScorer and JobConfidenceCalculator). Pure.

The formulas, exactly as the seed states them:

- ``supportStrength`` = mean of the supporting sources' composite scores;
- ``confidenceScore`` = ``clamp(min(supportStrength + supportCount * 0.05, 1.0)
  - contradictCount * 0.15, [0, 1])``;
- job ``confidence`` = ``clamp(avgClaimConfidence * min(sourceCount / 10, 1.0), [0, 1])``.

Composite source scores are in 0..1; counts are numbers of distinct sources.
"""

from __future__ import annotations

from collections.abc import Sequence

SUPPORT_BONUS = 0.05
"""Added to a claim's support strength per supporting source (seed 003)."""

CONTRADICTION_PENALTY = 0.15
"""Taken off a claim's confidence per contradicting source (seed 003)."""

FULL_SOURCE_COUNT = 10
"""Job confidence is scaled by ``min(source_count / 10, 1.0)``: ten sources or more count in
full (seed 003)."""


def clamp(value: float, low: float = 0.0, high: float = 1.0) -> float:
    """``value`` limited to ``[low, high]``."""
    if low > high:
        raise ValueError(f"empty range [{low}, {high}]")
    return min(max(value, low), high)


def support_strength(scores: Sequence[float]) -> float:
    """``supportStrength`` = mean of the supporting sources' composite scores; 0 when
    nothing supports the claim."""
    if not scores:
        return 0.0
    return sum(scores) / len(scores)


def claim_confidence(support_strength: float, support_count: int, contradict_count: int) -> float:
    """``confidenceScore`` = ``clamp(min(supportStrength + supportCount * 0.05, 1.0)
    - contradictCount * 0.15, [0, 1])``."""
    _check_count("support_count", support_count)
    _check_count("contradict_count", contradict_count)
    supported = min(support_strength + support_count * SUPPORT_BONUS, 1.0)
    return clamp(supported - contradict_count * CONTRADICTION_PENALTY)


def job_confidence(claim_confidences: Sequence[float], source_count: int) -> float:
    """Job ``confidence`` = ``clamp(avgClaimConfidence * min(sourceCount / 10, 1.0),
    [0, 1])``; 0 when there are no claims."""
    _check_count("source_count", source_count)
    if not claim_confidences:
        return 0.0
    average = sum(claim_confidences) / len(claim_confidences)
    return clamp(average * min(source_count / FULL_SOURCE_COUNT, 1.0))


def _check_count(name: str, value: int) -> None:
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
