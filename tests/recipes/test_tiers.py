"""Seed 000's quality tiers (9.1, 9.2, 7.2): every boundary of the data-quality and
research-quality tiers, the confidence ranges, and CLEAN's "no flags"."""

from __future__ import annotations

import pytest

from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import CompanyVerification, Phase2Output, ProfileItem
from deepresearch.recipes.employer.tiers import (
    CONFIDENCE_RANGES,
    assess_quality_heuristically,
    clamp_confidence,
    heuristic_confidence,
    research_tier_for_confidence,
    tiers_for_counts,
)

SUMMARY = (
    "Acme Robotics builds warehouse robots in Oslo and sells them to logistics firms across "
    "Europe, with an engineering team of forty people."
)  # 22 words


def profile(tech: int, requirements: int, *, summary: str = SUMMARY) -> Phase2Output:
    return Phase2Output(
        employer_summary=summary,
        tech_stack=[ProfileItem(text=f"Tech{i}", evidence=["E1"]) for i in range(tech)],
        identified_requirements=[
            ProfileItem(text=f"Five years of experience with system number {i}", evidence=["E1"])
            for i in range(requirements)
        ],
        culture_signals=[
            ProfileItem(text="Engineers own their services end to end", evidence=["E1"])
        ],
    )


@pytest.mark.parametrize(
    ("tech", "requirements", "research", "data"),
    [
        (3, 3, "HIGH", "CLEAN"),  # both at the HIGH thresholds
        (9, 9, "HIGH", "CLEAN"),
        (2, 3, "MEDIUM", "PARTIAL"),  # one technology short of HIGH
        (3, 2, "MEDIUM", "PARTIAL"),  # one requirement short of HIGH
        (1, 2, "MEDIUM", "PARTIAL"),  # both at the MEDIUM thresholds
        (0, 2, "LOW", "SPARSE"),  # no technology: below MEDIUM
        (1, 1, "LOW", "SPARSE"),  # one requirement short of MEDIUM
        (9, 1, "LOW", "SPARSE"),
        (1, 0, "LOW", "SPARSE"),  # the seed's example: ["Python"] and nothing else
        (0, 1, "LOW", "SPARSE"),
        (0, 0, "INSUFFICIENT", "SPARSE"),  # nothing, but a summary of 22 words
    ],
)
def test_count_boundaries(tech: int, requirements: int, research: str, data: str) -> None:
    assert tiers_for_counts(tech, requirements, summary_words=22) == (research, data)


@pytest.mark.parametrize(("words", "data"), [(0, "GARBAGE"), (9, "GARBAGE"), (10, "SPARSE")])
def test_no_data_is_garbage_below_ten_summary_words(words: int, data: str) -> None:
    assert tiers_for_counts(0, 0, summary_words=words) == ("INSUFFICIENT", data)


def test_counts_are_taken_after_pruning(lists: EmployerLists) -> None:
    p2 = profile(3, 3)
    p2.tech_stack[0] = ProfileItem(text="cloud", evidence=["E1"])  # generic: pruned
    assessment, pruned = assess_quality_heuristically(p2, lists)
    assert assessment.tech_count == 2 and pruned.pruned.tech_stack == ["cloud"]
    assert (assessment.preliminary_tier, assessment.data_quality_tier) == ("MEDIUM", "PARTIAL")


def test_clean_needs_no_blocking_flag(lists: EmployerLists) -> None:
    assessment, _ = assess_quality_heuristically(profile(3, 3), lists)
    assert assessment.data_quality_tier == "CLEAN"
    short = assess_quality_heuristically(profile(3, 3, summary="Acme builds robots."), lists)[0]
    assert "SHORT_SUMMARY" in short.quality_flags  # < 15 words (MIN_EMPLOYER_SUMMARY_WORDS)
    assert (short.preliminary_tier, short.data_quality_tier) == ("MEDIUM", "PARTIAL")
    invented = profile(3, 3).model_copy(update={"unsupported": ["tech_stack: COBOL"]})
    flagged = assess_quality_heuristically(invented, lists)[0]
    assert "HALLUCINATION_SIGNALS" in flagged.quality_flags
    assert flagged.data_quality_tier == "PARTIAL"


def test_fourteen_summary_words_is_short_fifteen_is_not(lists: EmployerLists) -> None:
    fourteen = " ".join(["word"] * 14)
    fifteen = " ".join(["word"] * 15)
    assert (
        "SHORT_SUMMARY"
        in assess_quality_heuristically(profile(3, 3, summary=fourteen), lists)[0].quality_flags
    )
    assert (
        "SHORT_SUMMARY"
        not in assess_quality_heuristically(profile(3, 3, summary=fifteen), lists)[0].quality_flags
    )


def test_missing_categories_are_named(lists: EmployerLists) -> None:
    empty = Phase2Output(employer_summary="")
    assessment, _ = assess_quality_heuristically(empty, lists)
    assert assessment.missing_data_categories == [
        "employer_summary", "tech_stack", "identified_requirements", "culture_signals",
    ]  # fmt: skip
    assert assessment.data_quality_tier == "GARBAGE"


@pytest.mark.parametrize(
    ("score", "tier"),
    [
        (100, "HIGH"), (75, "HIGH"), (74, "MEDIUM"), (40, "MEDIUM"), (39, "LOW"), (15, "LOW"),
        (14, "INSUFFICIENT"), (0, "INSUFFICIENT"),
    ],
)  # fmt: skip
def test_confidence_range_boundaries(score: int, tier: str) -> None:
    assert research_tier_for_confidence(score) == tier


def test_confidence_outside_the_scale_is_an_error() -> None:
    with pytest.raises(ValueError):
        research_tier_for_confidence(101)


def test_ranges_cover_zero_to_one_hundred_without_overlap() -> None:
    covered = sorted(n for low, high in CONFIDENCE_RANGES.values() for n in range(low, high + 1))
    assert covered == list(range(101))


@pytest.mark.parametrize("tier", ["HIGH", "MEDIUM", "LOW", "INSUFFICIENT"])
def test_clamping_places_a_score_in_its_tier(tier: str) -> None:
    for score in range(0, 101, 7):
        assert research_tier_for_confidence(clamp_confidence(score, tier)) == tier  # type: ignore[arg-type]


def test_heuristic_confidence_always_agrees_with_the_tier(lists: EmployerLists) -> None:
    for tech in range(6):
        for requirements in range(5):
            assessment, _ = assess_quality_heuristically(profile(tech, requirements), lists)
            for status in ("VERIFIED", "PARTIAL", "UNVERIFIED"):
                for risk in ("LOW", "MEDIUM", "HIGH"):
                    score = heuristic_confidence(
                        assessment,
                        CompanyVerification(status=status),  # type: ignore[arg-type]
                        risk,  # type: ignore[arg-type]
                        assessment.preliminary_tier,
                    )
                    assert research_tier_for_confidence(score) == assessment.preliminary_tier
