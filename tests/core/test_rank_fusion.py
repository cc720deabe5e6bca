"""``core.rank_fusion``: reciprocal rank fusion of ranked lists of any keys."""

from __future__ import annotations

import pytest

from deepresearch.core.rank_fusion import reciprocal_rank_fusion


def test_a_key_in_both_lists_beats_one_that_a_single_list_puts_first() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["d", "b"]])
    assert [key for key, _ in fused] == ["b", "a", "d", "c"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 62)
    assert fused[1][1] == pytest.approx(1 / 61)


def test_ties_go_to_the_earlier_list_then_first_appearance() -> None:
    assert [key for key, _ in reciprocal_rank_fusion([["t"], ["v"]])] == ["t", "v"]
    assert [key for key, _ in reciprocal_rank_fusion([[], ["x", "y"]])] == ["x", "y"]


def test_one_list_keeps_its_order_and_no_list_gives_nothing() -> None:
    assert [key for key, _ in reciprocal_rank_fusion([[3, 1, 2]])] == [3, 1, 2]
    assert reciprocal_rank_fusion([]) == []
    assert reciprocal_rank_fusion([[], []]) == []


def test_k_damps_the_head_and_must_be_positive() -> None:
    sharp = reciprocal_rank_fusion([["a", "b"], ["b"]], k=1)
    assert [key for key, _ in sharp] == ["b", "a"]
    with pytest.raises(ValueError, match="k must be"):
        reciprocal_rank_fusion([["a"]], k=0)
