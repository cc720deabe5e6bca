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

Then the members **vote** on the plan (seed 002's validate_brief): approve, revise or
reject, with feedback. A round's consensus is the mean of the votes cast, approve 1,
revise 0.5, reject 0 (``approval``); at or above the same threshold the plan is approved;
below it the planner revises the plan with the feedback, up to ``max_revisions`` times,
after which the last plan stands (``review``). Fewer than two members, or fewer than two
votes cast, is no vote: the plan stands as decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.core.lexical import overlap
from deepresearch.models.council import (
    CouncilDecision,
    CouncilResult,
    CouncilVote,
    ReviewOutcome,
    VoteVerdict,
)

#: two sub-questions sharing this much of their content words (either way) are one
DUPLICATE_OVERLAP = 0.75
#: what each vote gives the consensus: a "revise" is half an approval
VOTE_WEIGHTS: dict[VoteVerdict, float] = {"approve": 1.0, "revise": 0.5, "reject": 0.0}
#: a vote needs at least this many members, and this many votes cast
MIN_VOTERS = 2


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


@dataclass(frozen=True)
class Review:
    outcome: ReviewOutcome
    consensus: float | None  # the round's, None when no vote was held
    note: str = ""


def approval(verdicts: Sequence[VoteVerdict | None]) -> float | None:
    """A round's consensus: the mean weight of the votes cast, None when none was."""
    cast = [VOTE_WEIGHTS[verdict] for verdict in verdicts if verdict is not None]
    if not cast:
        return None
    return round(sum(cast) / len(cast), 4)


def review(
    verdicts: Sequence[VoteVerdict | None],
    threshold: float,
    *,
    revisions: int,
    max_revisions: int,
) -> Review:
    """What a round of votes decides, ``revisions`` being the revisions made so far."""
    cast = sum(verdict is not None for verdict in verdicts)
    if cast < MIN_VOTERS:
        return Review("no_vote", None, f"{cast} vote(s) cast, a vote needs {MIN_VOTERS}")
    agreed = approval(verdicts)
    assert agreed is not None  # at least MIN_VOTERS votes were cast
    if agreed >= threshold:
        return Review("approved", agreed)
    if revisions < max_revisions:
        return Review("revise", agreed)
    return Review("stopped", agreed, f"{max_revisions} revision(s) made, none left")


def revision_feedback(votes: Sequence[CouncilVote]) -> str:
    """The feedback the planner revises with: each member's that did not approve, in
    order (an approval's feedback too, when it gave some)."""
    lines = [
        f"- {vote.member} ({vote.verdict}): {vote.feedback.strip() or 'no reason given'}"
        for vote in votes
        if vote.verdict is not None and (vote.verdict != "approve" or vote.feedback.strip())
    ]
    return "\n".join(lines)


def council_notes(result: CouncilResult) -> list[str]:
    """The council's record as lines a person reviewing the plan reads: the decision,
    each round's votes and each revision."""
    notes = []
    if result.consensus is not None:
        taken = ", ".join(result.proposals[i].member for i in result.chosen)
        notes.append(
            f"Council: {result.decision} (consensus {result.consensus:.2f}, "
            f"threshold {result.threshold:.2f}; from {taken})"
        )
    elif result.note:
        notes.append(f"Council: {result.note}")
    rounds = sorted({vote.round for vote in result.votes})
    for number in rounds:
        said = [
            f"{v.member} {v.verdict or 'no vote'}" + (f": {v.feedback}" if v.feedback else "")
            for v in result.votes
            if v.round == number
        ]
        notes.append(f"Vote {number}: " + "; ".join(said))
        revision = next((r for r in result.revisions if r.round == number + 1), None)
        if revision is not None:
            notes.append(f"Revision {revision.round}: the planner revised the plan")
    if result.review is not None:
        notes.append(
            f"Review: {result.review}" + (f" ({result.review_note})" if result.review_note else "")
        )
    return notes
