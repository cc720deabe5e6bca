"""A research unit's failure is its own (seed 004, ``core.units``): which errors a unit
owns, the reason each gets, and how a failed unit's sub-question reads in the wave's
merge, the gate and the report's limitations. Hand-made inputs only."""

from __future__ import annotations

import asyncio

import pytest

from deepresearch.core.assemble import limitations
from deepresearch.core.gate import GateThresholds, evaluate_gate
from deepresearch.core.units import (
    COMPLETED,
    FAILED,
    TIMED_OUT,
    UnitOutcome,
    failure_note,
    owns,
    unit_outcome,
)
from deepresearch.core.waves import UnitResult, failed_unit, merge_wave, unit_status
from deepresearch.errors import ConfigError, ModelOutputError, ProviderUnavailable
from deepresearch.models import SubQuestion

from .test_waves import evidence, source, sq, state


@pytest.mark.parametrize(
    ("error", "own"),
    [
        (RuntimeError("a bug in an adapter"), True),
        (KeyError("results"), True),
        (TimeoutError(), True),
        # the run's own errors stop it as before: a policy or a key decided that
        (ConfigError("no key"), False),
        (ProviderUnavailable("down", provider="searxng"), False),
        (ModelOutputError("unusable"), False),
        (asyncio.CancelledError(), False),
        (KeyboardInterrupt(), False),
    ],
)
def test_a_unit_owns_only_unexpected_errors_and_time_outs(error: BaseException, own: bool) -> None:
    assert owns(error) is own


def test_the_reasons_are_seed_004s_and_never_the_errors_text() -> None:
    assert unit_outcome(TimeoutError("https://10.0.0.1/ stalled")) == UnitOutcome(
        "timed_out", TIMED_OUT
    )
    failed = unit_outcome(RuntimeError("key sk-123 refused at https://internal/"))
    assert failed == UnitOutcome("failed", FAILED)
    assert failed.failed and not COMPLETED.failed and COMPLETED.reason is None


def test_a_failed_unit_fails_its_sub_question_and_the_others_merge() -> None:
    done = UnitResult(sq("q1"), sources=[source("s1", "q1")], evidence=[evidence("e1")], passing=1)
    cut = failed_unit(sq("q2"), unit_outcome(TimeoutError()))
    merged = merge_wave(state(), [done, cut], wave=1, min_passing=1)
    by_id = {item.id: item for item in merged.sub_questions}
    assert (by_id["q1"].status, by_id["q1"].failure) == ("covered", None)
    assert (by_id["q2"].status, by_id["q2"].failure) == ("failed", TIMED_OUT)
    assert by_id["q2"].attempts == 1 and by_id["q2"].wave == 1
    assert [item.id for item in merged.evidence] == ["e1"]
    assert list(merged.sources) == ["s1"]
    # an abort report's limitations are the warnings: it says so too
    assert merged.warnings == [f"Research failed for: question q2 ({TIMED_OUT})."]


def test_a_widened_sub_question_stays_covered_when_its_further_unit_fails() -> None:
    widened = sq("q1", status="covered", widened=1)
    after = unit_status(
        widened, failed_unit(widened, unit_outcome(KeyError())), wave=3, min_passing=1
    )
    assert (after.status, after.failure) == ("covered", FAILED)
    # it keeps its answer: neither the gate nor the limitations call its research failed
    assert failure_note([after]) is None
    gate = evaluate_gate([evidence("e1", "q1")], [after], GateThresholds(1, 1, 1))
    assert not any("research failed" in reason for reason in gate.reasons)
    # and a later unit that completes clears the failure
    again = unit_status(after, UnitResult(after), wave=4, min_passing=1)
    assert again.failure is None


def test_the_gate_names_each_failed_unit_and_why() -> None:
    subs = [
        SubQuestion(id="q1", text="A?", status="covered"),
        SubQuestion(id="q2", text="B?", status="failed", failure=TIMED_OUT),
    ]
    gate = evaluate_gate(
        [evidence("e1", "q1")],
        subs,
        GateThresholds(min_evidence=1, min_cited_evidence=1, min_domains=1),
    )
    assert f"research failed for q2 ({TIMED_OUT})" in gate.reasons
    assert gate.status == "retry"


def test_the_limitations_say_which_sub_questions_research_failed_and_why() -> None:
    subs = [
        SubQuestion(id="q1", text="A?", status="weak"),
        SubQuestion(id="q2", text="B?", status="failed", failure=TIMED_OUT),
        SubQuestion(id="q3", text="C?", status="failed", failure=FAILED),
        SubQuestion(id="q4", text="D?", status="failed"),  # stopped early: nothing found
    ]
    out = limitations(gate=None, sub_questions=subs, sources={}, model_errors=[])
    assert out == [
        "No verified evidence was found for: A?; D?.",
        f"Research failed for: B? ({TIMED_OUT}); C? ({FAILED}).",
    ]
    assert failure_note(subs[:1]) is None
