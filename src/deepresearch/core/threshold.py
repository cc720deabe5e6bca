"""Seed 001's adaptive threshold and the read/drop decision with its reason. Pure.

Seed 001, 4.3: "Low result count (<15): Use 0.45 (niche query); High social ratio (>50%):
Use 0.45 (limited quality sources); Well-covered topic (>40 results, <20% social): Use 0.65
(stricter); Default: Use 0.60". Seed 001, decision 4, also lowers it by query type
("entity comparison → lower threshold") without a figure: a comparison's page about one of
the things compared answers half the question and scores lower against it, so a
comparison's threshold is the rule's less ``COMPARISON_LOWER`` (0.10), never under
``COMPARISON_FLOOR``. Seed 001, 4.5 counts a source as passing when
``score >= adaptive_threshold``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from deepresearch.models.scores import SourceScores, SourceType

NICHE_THRESHOLD = 0.45
SOCIAL_THRESHOLD = 0.45
STRICT_THRESHOLD = 0.65
DEFAULT_THRESHOLD = 0.60
NICHE_BELOW = 15
SOCIAL_ABOVE = 0.5
WELL_COVERED_ABOVE = 40
WELL_COVERED_SOCIAL_BELOW = 0.2
COMPARISON_LOWER = 0.10
COMPARISON_FLOOR = 0.35
_EPSILON = 1e-9


def social_ratio(source_types: Sequence[SourceType]) -> float:
    """Share of results that are social media (0.0 for no results)."""
    if not source_types:
        return 0.0
    return sum(1 for kind in source_types if kind == "social") / len(source_types)


def adaptive_threshold(
    result_count: int, social_ratio: float, *, comparison: bool = False
) -> float:
    """Seed 001, rules checked in order: fewer than 15 results -> 0.45; more than half
    social -> 0.45; more than 40 results and under 20% social -> 0.65; else 0.60. For an
    entity ``comparison``, that less 0.10 (not under 0.35)."""
    base = _by_results(result_count, social_ratio)
    if comparison:
        return round(max(base - COMPARISON_LOWER, COMPARISON_FLOOR), 2)
    return base


def _by_results(result_count: int, social_ratio: float) -> float:
    if result_count < NICHE_BELOW:
        return NICHE_THRESHOLD
    if social_ratio > SOCIAL_ABOVE:
        return SOCIAL_THRESHOLD
    if result_count > WELL_COVERED_ABOVE and social_ratio < WELL_COVERED_SOCIAL_BELOW:
        return STRICT_THRESHOLD
    return DEFAULT_THRESHOLD


def threshold_for(scored: Sequence[SourceScores], *, comparison: bool = False) -> float:
    """``adaptive_threshold`` over a scored result list (for a ``comparison`` query)."""
    kinds = [s.source_type for s in scored]
    return adaptive_threshold(len(scored), social_ratio(kinds), comparison=comparison)


class Selection(BaseModel):
    """Every input with its decision; ``decisions`` keeps the input order."""

    model_config = ConfigDict(frozen=True)

    decisions: list[SourceScores]
    threshold: float

    @property
    def read(self) -> list[SourceScores]:
        """Sources to read, best first."""
        chosen = [s for s in self.decisions if s.decision == "read"]
        return sorted(chosen, key=lambda s: -s.final)

    @property
    def dropped(self) -> list[SourceScores]:
        """Dropped sources, best first."""
        gone = [s for s in self.decisions if s.decision == "dropped"]
        return sorted(gone, key=lambda s: -s.final)


def select(scored: Sequence[SourceScores], threshold: float, limit: int | None) -> Selection:
    """Read the best ``limit`` sources (all when ``None``) scoring at least ``threshold``.

    Ties keep the input order. Reasons read ``"read: rank 2, score 0.78 >= threshold
    0.60"``, ``"dropped: score 0.41 below threshold 0.60"`` or ``"dropped: score 0.70
    passes threshold 0.60 but is beyond the top 5"``.
    """
    order = sorted(range(len(scored)), key=lambda i: (-scored[i].final, i))
    decided: dict[int, SourceScores] = {}
    taken = 0
    for index in order:
        item = scored[index]
        score = f"score {item.final:.2f}"
        bar = f"threshold {threshold:.2f}"
        if item.final < threshold - _EPSILON:
            update = {"decision": "dropped", "reason": f"dropped: {score} below {bar}"}
        elif limit is not None and taken >= limit:
            update = {
                "decision": "dropped",
                "reason": f"dropped: {score} passes {bar} but is beyond the top {limit}",
            }
        else:
            taken += 1
            update = {"decision": "read", "reason": f"read: rank {taken}, {score} >= {bar}"}
        decided[index] = item.model_copy(update={**update, "threshold": threshold})
    return Selection(decisions=[decided[i] for i in range(len(scored))], threshold=threshold)


MIN_READ = 2


def ensure_minimum(selection: Selection, minimum: int = MIN_READ) -> Selection:
    """When fewer than ``minimum`` sources pass the threshold, the best of the rest are
    read too, each saying so in its reason: a sub-question with weak results still gets
    its best evidence looked at, and the quality gate (not this filter) decides whether
    that evidence is enough. Sources below the floor of 0 final score are never read."""
    missing = minimum - len(selection.read)
    if missing <= 0:
        return selection
    promote = {id(s) for s in selection.dropped if s.final > 0 and "below threshold" in s.reason}
    promoted = 0
    decisions = []
    for item in sorted(selection.decisions, key=lambda s: -s.final):
        if promoted < missing and id(item) in promote:
            promoted += 1
            item = item.model_copy(
                update={
                    "decision": "read",
                    "reason": (
                        f"read: best available, score {item.final:.2f} below threshold "
                        f"{selection.threshold:.2f}"
                    ),
                }
            )
        decisions.append(item)
    order = {s.url: i for i, s in enumerate(selection.decisions)}
    decisions.sort(key=lambda s: order.get(s.url, 0))
    return selection.model_copy(update={"decisions": decisions})
