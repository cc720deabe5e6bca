"""The pure decisions that keep waiting off a run's critical path: intake plans ahead,
reflect asks its model only when the answer can change what happens, and the audit stays
one round of judge calls."""

from __future__ import annotations

import pytest

from deepresearch.core.audit import AUDIT_PER_CALL, audit_batches
from deepresearch.core.gate import reflection_wanted
from deepresearch.core.intake import plan_ahead


def test_intake_plans_ahead_only_when_its_model_decides_a_research_question() -> None:
    assert plan_ahead(screened="research", model_intake=True, council=False)
    assert not plan_ahead(screened="research", model_intake=False, council=False)  # no model
    assert not plan_ahead(screened="chitchat", model_intake=True, council=False)
    assert not plan_ahead(screened="malicious", model_intake=True, council=False)
    # the council's members, scores and events belong to the plan stage
    assert not plan_ahead(screened="research", model_intake=True, council=True)


def test_reflect_asks_its_model_unless_the_run_writes_next_whatever_it_says() -> None:
    assert not reflection_wanted(passed=True, leads=0, queued=0)
    assert reflection_wanted(passed=False, leads=0, queued=0)  # the gate failed
    assert reflection_wanted(passed=True, leads=2, queued=0)  # short of the depth's floor
    assert reflection_wanted(passed=True, leads=0, queued=1)  # a weak question retried


@pytest.mark.parametrize("count", range(0, 40))
@pytest.mark.parametrize("slots", [1, 2, 8])
def test_audit_batches_cover_every_sentence_once_in_as_few_rounds_as_the_batch_allows(
    count: int, slots: int
) -> None:
    sizes = audit_batches(count, slots=slots)
    assert sum(sizes) == count and all(size >= 1 for size in sizes)
    assert max(sizes, default=0) <= AUDIT_PER_CALL
    if count <= slots:
        assert sizes == [1] * count  # each sentence its own call, all in one round
    rounds = -(-len(sizes) // slots)
    assert rounds == max(1, -(-count // (slots * AUDIT_PER_CALL))) if count else rounds == 0
    assert max(sizes, default=0) - min(sizes, default=0) <= 1  # spread evenly


def test_audit_batches_past_the_slots_use_every_slot() -> None:
    # 10 sentences, 8 slots: 8 calls (two of them judge 2 sentences), not 8 then 2
    assert audit_batches(10, slots=8) == [2, 2, 1, 1, 1, 1, 1, 1]
    # past slots x per call, calls of at most AUDIT_PER_CALL: as few rounds as possible
    assert audit_batches(30, slots=8) == [3] * 10
