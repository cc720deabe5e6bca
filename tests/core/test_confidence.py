"""Seed 003's claim and job confidence formulas against hand-computed values."""

from __future__ import annotations

import pytest

from deepresearch.core.confidence import (
    CONTRADICTION_PENALTY,
    FULL_SOURCE_COUNT,
    SUPPORT_BONUS,
    claim_confidence,
    clamp,
    job_confidence,
    support_strength,
)


def test_the_seed_constants() -> None:
    assert (SUPPORT_BONUS, CONTRADICTION_PENALTY, FULL_SOURCE_COUNT) == (0.05, 0.15, 10)


def test_clamp() -> None:
    assert clamp(-0.2) == 0.0
    assert clamp(1.3) == 1.0
    assert clamp(0.42) == 0.42
    assert clamp(5, 1, 3) == 3
    with pytest.raises(ValueError):
        clamp(0.5, 1.0, 0.0)


def test_support_strength_is_the_mean_of_the_supporting_scores() -> None:
    assert support_strength([0.8, 0.6]) == pytest.approx(0.7)
    assert support_strength([0.9]) == pytest.approx(0.9)
    assert support_strength([0.2, 0.5, 0.8]) == pytest.approx(0.5)
    assert support_strength([]) == 0.0


def test_claim_confidence_by_hand() -> None:
    # strength 0.7, two sources: min(0.7 + 2 * 0.05, 1) = 0.8
    assert claim_confidence(0.7, 2, 0) == pytest.approx(0.8)
    # one contradiction: 0.8 - 0.15 = 0.65
    assert claim_confidence(0.7, 2, 1) == pytest.approx(0.65)
    # two contradictions: 0.8 - 0.30 = 0.5
    assert claim_confidence(0.7, 2, 2) == pytest.approx(0.5)
    # a single source: 0.5 + 0.05 = 0.55
    assert claim_confidence(0.5, 1, 0) == pytest.approx(0.55)


def test_the_support_bonus_is_capped_at_one_before_the_penalty() -> None:
    # min(0.95 + 4 * 0.05, 1.0) = 1.0 (not 1.15); minus 0.15 = 0.85
    assert claim_confidence(0.95, 4, 0) == 1.0
    assert claim_confidence(0.95, 4, 1) == pytest.approx(0.85)


def test_claim_confidence_is_clamped_at_zero() -> None:
    # min(0.3 + 0.05, 1) - 3 * 0.15 = -0.1 -> 0
    assert claim_confidence(0.3, 1, 3) == 0.0
    assert claim_confidence(0.0, 0, 0) == 0.0


def test_claim_confidence_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        claim_confidence(0.5, -1, 0)
    with pytest.raises(ValueError):
        claim_confidence(0.5, 1, -1)


def test_job_confidence_by_hand() -> None:
    # average (0.65 + 0.9) / 2 = 0.775; 4 sources scale by 0.4
    assert job_confidence([0.65, 0.9], 4) == pytest.approx(0.31)
    # ten sources or more count in full
    assert job_confidence([0.65, 0.9], 10) == pytest.approx(0.775)
    assert job_confidence([0.65, 0.9], 12) == pytest.approx(0.775)
    # (0.2 + 0.4 + 0.6) / 3 = 0.4; 5 sources scale by 0.5
    assert job_confidence([0.2, 0.4, 0.6], 5) == pytest.approx(0.2)


def test_job_confidence_edges() -> None:
    assert job_confidence([], 12) == 0.0
    assert job_confidence([0.9], 0) == 0.0
    assert job_confidence([1.0, 1.0], 30) == 1.0
    with pytest.raises(ValueError):
        job_confidence([0.5], -1)
