"""The council's rule (``core.council``): consensus is the mean of the judge's scores; at
or above the threshold the best proposal is taken, below it the top two are merged."""

from __future__ import annotations

import pytest

from deepresearch.core.council import (
    approval,
    consensus,
    council_notes,
    decide,
    merge_briefs,
    merge_sub_questions,
    review,
    revision_feedback,
    unit_score,
)
from deepresearch.models.council import (
    CouncilProposal,
    CouncilResult,
    CouncilRevision,
    CouncilVote,
    VoteVerdict,
)


def test_consensus_is_the_mean_of_the_scores_given() -> None:
    assert consensus([0.9, 0.6, None, 0.3]) == 0.6
    assert consensus([None, None]) is None and consensus([]) is None


@pytest.mark.parametrize(
    ("scores", "decision", "chosen"),
    [
        ([0.9, 0.8, 0.7], "best", [0]),  # mean 0.8
        ([0.7, 0.7, 0.7], "best", [0]),  # exactly at the threshold: agreed; a tie: the first
        ([0.6, 0.95, 0.8], "best", [1]),  # mean 0.783: the highest score, wherever it is
    ],
)
def test_at_or_above_the_threshold_the_best_is_taken(
    scores: list[float], decision: str, chosen: list[int]
) -> None:
    verdict = decide(scores, 0.7)
    assert (verdict.decision, verdict.chosen) == (decision, chosen)


def test_below_the_threshold_the_top_two_are_merged_best_first() -> None:
    verdict = decide([0.6, 0.95, 0.3], 0.7)  # mean 0.6167
    assert (verdict.decision, verdict.chosen, verdict.consensus) == ("merged", [1, 0], 0.6167)
    assert decide([0.4, None, 0.5], 0.7).chosen == [2, 0]  # an unscored proposal is not ranked


def test_nothing_scored_takes_the_planners_own_proposal() -> None:
    assert (decide([None, None], 0.7).decision, decide([None, None], 0.7).chosen) == (
        "single",
        [0],
    )
    one = decide([None, 0.2], 0.7)  # one scored proposal is the best there is
    assert (one.decision, one.chosen) == ("best", [1])


def test_merging_interleaves_and_drops_repeats() -> None:
    first = [("Where was the film shot?", ["a"]), ("Who directed the film?", ["b"])]
    second = [("Where was the film shot", ["c"]), ("Who wrote the score?", ["d"])]
    merged = merge_sub_questions(first, second)
    assert [text for text, _ in merged] == [
        "Where was the film shot?",
        "Who directed the film?",
        "Who wrote the score?",
    ]
    assert merged[0][1] == ["a"]  # the better proposal's queries are kept


def test_briefs_are_joined_unless_one_repeats_the_other() -> None:
    assert merge_briefs("Cover the dates.", "Cover the people.") == (
        "Cover the dates. Cover the people."
    )
    assert merge_briefs("Cover the dates and places.", "cover the dates") == (
        "Cover the dates and places."
    )
    assert merge_briefs("", "Only this.") == "Only this."


def test_scores_on_other_scales_are_read_as_such() -> None:
    assert unit_score(0.8) == 0.8 and unit_score(8) == 0.8 and unit_score(80) == 0.8
    assert unit_score(-1) == 0.0 and unit_score(500) == 1.0


# the members' votes on the plan (issue 28, seed 002's validate_brief)


def test_approval_weighs_approve_revise_and_reject() -> None:
    assert approval(["approve", "revise", "reject"]) == 0.5
    assert approval(["approve", "approve", "revise"]) == round(2.5 / 3, 4)
    assert approval([None, "approve", "reject"]) == 0.5  # an abstention is not counted
    assert approval([None, None]) is None


@pytest.mark.parametrize(
    ("verdicts", "revisions", "outcome"),
    [
        (["approve", "approve", "revise"], 0, "approved"),  # 0.833 >= 0.7
        (["approve", "revise", "reject"], 0, "revise"),  # 0.5 < 0.7, revisions left
        (["approve", "revise", "reject"], 2, "revise"),
        (["approve", "revise", "reject"], 3, "stopped"),  # the maximum reached
        (["approve", None, None], 0, "no_vote"),  # one vote cast is no vote
        ([], 0, "no_vote"),
    ],
)
def test_a_round_of_votes_decides_by_the_threshold_and_the_revisions_left(
    verdicts: list[VoteVerdict | None], revisions: int, outcome: str
) -> None:
    decided = review(verdicts, 0.7, revisions=revisions, max_revisions=3)
    assert decided.outcome == outcome
    if outcome == "no_vote":
        assert decided.consensus is None and "a vote needs 2" in decided.note
    if outcome == "stopped":
        assert decided.note == "3 revision(s) made, none left"


def test_no_revision_allowed_stops_at_once() -> None:
    assert review(["reject", "reject"], 0.7, revisions=0, max_revisions=0).outcome == "stopped"


def test_the_planner_gets_the_feedback_of_every_member_that_did_not_just_approve() -> None:
    votes = [
        CouncilVote(round=0, member="a", verdict="approve", feedback=""),
        CouncilVote(round=0, member="b", verdict="revise", feedback="Ask about costs."),
        CouncilVote(round=0, member="c", verdict="reject", feedback=""),
        CouncilVote(round=0, member="d", verdict=None, feedback=""),
        CouncilVote(round=0, member="e", verdict="approve", feedback="Keep the dates."),
    ]
    assert revision_feedback(votes).splitlines() == [
        "- b (revise): Ask about costs.",
        "- c (reject): no reason given",
        "- e (approve): Keep the dates.",
    ]


def test_the_notes_a_reviewer_reads_give_the_decision_votes_and_revisions() -> None:
    result = CouncilResult(
        proposals=[CouncilProposal(member="m1", brief="b", score=0.8)],
        consensus=0.8,
        decision="best",
        chosen=[0],
        votes=[
            CouncilVote(round=0, member="m1", verdict="reject", feedback="Too narrow."),
            CouncilVote(round=0, member="m2", verdict=None),
            CouncilVote(round=1, member="m1", verdict="approve"),
        ],
        revisions=[
            CouncilRevision(round=1, consensus=0.0, feedback="- m1: Too narrow.", brief="b")
        ],
        review="approved",
    )
    assert council_notes(result) == [
        "Council: best (consensus 0.80, threshold 0.70; from m1)",
        "Vote 0: m1 reject: Too narrow.; m2 no vote",
        "Revision 1: the planner revised the plan",
        "Vote 1: m1 approve",
        "Review: approved",
    ]
    assert council_notes(CouncilResult(note="no member proposed a plan")) == [
        "Council: no member proposed a plan"
    ]


def test_a_council_record_from_before_the_votes_still_loads() -> None:
    old = {"proposals": [], "consensus": None, "threshold": 0.7, "decision": "single"}
    loaded = CouncilResult.model_validate({**old, "chosen": [], "note": ""})
    assert (loaded.votes, loaded.revisions, loaded.review) == ([], [], None)
