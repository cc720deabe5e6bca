"""The council's decision (seed 002), pure: several members propose a research brief, the
judge scores each 0-1, and

- the **consensus** is the mean of those scores: the council's approval of its own
  proposals, as seed 002's members' approvals make its consensus score;
- at or above the threshold (0.7) the council agrees the question is well planned, and
  the **best** proposal (highest score; the earlier one on a tie) is the plan;
- below it no proposal convinced on its own, and the **top two are merged**: their
  sub-questions interleaved, best first, near-duplicates dropped, so the plan covers what
  either saw;
- with nothing scored (no judge, or it failed) the first proposal, the planner's own, is
  the plan (**single**).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.core.lexical import overlap
from deepresearch.models.council import CouncilDecision

#: two sub-questions sharing this much of their content words (either way) are one
DUPLICATE_OVERLAP = 0.75


@dataclass(frozen=True)
class Decision:
    decision: CouncilDecision
    chosen: list[int]  # indices of the proposals the plan comes from, best first
    consensus: float | None


def consensus(scores: Sequence[float | None]) -> float | None:
    """The mean of the scores given (0-1), or None when the judge scored nothing."""
    present = [score for score in scores if score is not None]
    if not present:
        return None
    return round(sum(present) / len(present), 4)


def decide(scores: Sequence[float | None], threshold: float) -> Decision:
    """Which proposals the plan comes from, by the rule above."""
    agreed = consensus(scores)
    ranked = sorted(
        (index for index, score in enumerate(scores) if score is not None),
        key=lambda index: (-(scores[index] or 0.0), index),
    )
    if agreed is None or not ranked:
        return Decision("single", [0] if scores else [], None)
    if len(ranked) == 1 or agreed >= threshold:
        return Decision("best", ranked[:1], agreed)
    return Decision("merged", ranked[:2], agreed)


def merge_sub_questions(
    first: Sequence[tuple[str, list[str]]], second: Sequence[tuple[str, list[str]]]
) -> list[tuple[str, list[str]]]:
    """The two proposals' sub-questions (each with its queries) interleaved, ``first``'s
    first, dropping one that repeats a sub-question already taken, so a capped plan keeps
    the leading sub-questions of both."""
    out: list[tuple[str, list[str]]] = []
    for index in range(max(len(first), len(second))):
        for side in (first, second):
            if index < len(side) and not _repeats(side[index][0], out):
                out.append(side[index])
    return out


def merge_briefs(first: str, second: str) -> str:
    """The best brief, followed by the other's when it adds something."""
    first, second = first.strip(), second.strip()
    if not second or overlap(second, first) >= DUPLICATE_OVERLAP:
        return first
    if not first:
        return second
    return f"{first} {second}"


def _repeats(text: str, taken: Sequence[tuple[str, list[str]]]) -> bool:
    return any(
        overlap(text, other) >= DUPLICATE_OVERLAP or overlap(other, text) >= DUPLICATE_OVERLAP
        for other, _ in taken
    )


def unit_score(value: float) -> float:
    """A judge's score on 0-1; a reply on a 0-10 or 0-100 scale is read as such, and
    anything outside is clamped."""
    if 1.0 < value <= 10.0:
        value /= 10.0
    elif 10.0 < value <= 100.0:
        value /= 100.0
    return min(max(value, 0.0), 1.0)
