"""The council's rule (``core.council``): consensus is the mean of the judge's scores; at
or above the threshold the best proposal is taken, below it the top two are merged."""

from __future__ import annotations

import pytest

from deepresearch.core.council import (
    consensus,
    decide,
    merge_briefs,
    merge_sub_questions,
    unit_score,
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
