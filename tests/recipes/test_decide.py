"""The reranker's decision (seed 000, 9.1's routing column), the judge's bounds, and the
heuristic decision after a failed evaluation (14.2)."""

from __future__ import annotations

import pytest

from deepresearch.recipes.employer.judge import JudgeVerdict, combine
from deepresearch.recipes.employer.lists import EmployerLists, default_lists
from deepresearch.recipes.employer.models import Phase2Output, ProfileItem, SourceInfo
from deepresearch.recipes.employer.rerank import (
    Inputs,
    after_evaluation_error,
    decide,
    gather_inputs,
    verify_company,
)
from deepresearch.recipes.employer.tiers import allowed_actions

SUMMARY = (
    "Acme Robotics builds warehouse robots in Oslo and sells them to logistics firms in Europe."
)
NAMING = [SourceInfo(id=f"s{i}", url=f"http://x/{i}", names_company=True) for i in range(2)]


def make(
    tech: int, reqs: int, *, attempt: int = 1, summary: str = SUMMARY, company: str = "Acme"
) -> Inputs:
    phase2 = Phase2Output(
        employer_summary=summary,
        tech_stack=[
            ProfileItem(text=n, evidence=["E1"]) for n in ["Go", "Kafka", "Rust", "Redis"][:tech]
        ],
        identified_requirements=[
            ProfileItem(text=f"Experience number {i} with robot fleet software", evidence=["E1"])
            for i in range(reqs)
        ],
    )
    return gather_inputs(
        phase2,
        _lists(),
        company_name=company,
        job_title="Engineer",
        sources=NAMING,
        search_attempt=attempt,
    )


def _lists() -> EmployerLists:
    return default_lists()


@pytest.mark.parametrize(
    ("tech", "reqs", "attempt", "action", "research", "data"),
    [
        (3, 3, 1, "CONTINUE", "HIGH", "CLEAN"),
        (1, 2, 1, "CONTINUE_WITH_FLAGS", "MEDIUM", "PARTIAL"),
        (1, 0, 1, "ENHANCE_SEARCH", "LOW", "SPARSE"),
        (1, 0, 2, "CONTINUE_WITH_FLAGS", "LOW", "SPARSE"),  # still sparse after the retry
        (0, 0, 1, "ENHANCE_SEARCH", "INSUFFICIENT", "SPARSE"),  # a second chance
        (0, 0, 2, "EARLY_EXIT", "INSUFFICIENT", "SPARSE"),
    ],
)
def test_heuristic_decisions(
    tech: int, reqs: int, attempt: int, action: str, research: str, data: str
) -> None:
    out = decide(make(tech, reqs, attempt=attempt))
    assert (out.recommended_action, out.research_quality_tier, out.data_quality_tier) == (
        action, research, data,
    )  # fmt: skip
    assert bool(out.enhancement_queries) == (action == "ENHANCE_SEARCH")
    assert out.evaluated_by == "heuristics"


def test_garbage_exits_at_once() -> None:
    out = decide(make(0, 0, summary="Acme."))
    assert (out.recommended_action, out.data_quality_tier) == ("EARLY_EXIT", "GARBAGE")
    assert out.early_exit_reason.startswith("no usable data")


def test_no_company_means_no_enhancement_queries_and_no_retry() -> None:
    out = decide(make(1, 0, company=""))
    assert out.recommended_action == "CONTINUE_WITH_FLAGS" and not out.enhancement_queries


def test_enhancement_queries_are_the_seeds() -> None:
    out = decide(make(1, 0))
    assert out.enhancement_queries == [
        "Acme github engineering open source",
        "Acme engineering blog technology",
        "Acme linkedin engineering team",
        "Acme crunchbase funding technology stack",
    ]


def test_an_unverified_company_cannot_be_clean() -> None:
    inputs = make(3, 3)
    unverified = gather_inputs(
        inputs.phase2, _lists(), company_name="Acme", job_title=None, sources=[], search_attempt=1
    )
    out = decide(unverified)
    assert "COMPANY_NOT_FOUND_IN_SOURCES" in out.quality_flags
    assert (out.data_quality_tier, out.company_verifiability) == ("PARTIAL", "UNVERIFIED")


@pytest.mark.parametrize(("naming", "status"), [(0, "UNVERIFIED"), (1, "PARTIAL"), (2, "VERIFIED")])
def test_company_verifiability(naming: int, status: str) -> None:
    sources = [
        SourceInfo(id=f"s{i}", url=f"http://x/{i}", names_company=i < naming) for i in range(3)
    ]
    assert verify_company("Acme", sources).status == status


def test_the_users_posting_and_dropped_pages_do_not_verify() -> None:
    sources = [
        SourceInfo(id="input", url="input:job-description", names_company=False),
        SourceInfo(id="s1", url="http://x/1", names_company=True, dropped_reason="injection"),
    ]
    assert verify_company("Acme", sources).status == "UNVERIFIED"


@pytest.mark.parametrize(
    ("research", "data", "retry", "allowed"),
    [
        ("HIGH", "CLEAN", True, ("CONTINUE",)),
        ("MEDIUM", "PARTIAL", True, ("CONTINUE", "CONTINUE_WITH_FLAGS")),
        ("LOW", "SPARSE", True, ("ENHANCE_SEARCH", "CONTINUE_WITH_FLAGS")),
        ("LOW", "SPARSE", False, ("CONTINUE_WITH_FLAGS",)),
        ("INSUFFICIENT", "SPARSE", True, ("ENHANCE_SEARCH", "EARLY_EXIT")),
        ("INSUFFICIENT", "SPARSE", False, ("EARLY_EXIT",)),
        ("HIGH", "GARBAGE", True, ("EARLY_EXIT",)),
    ],
)
def test_allowed_actions_per_tier(
    research: str, data: str, retry: bool, allowed: tuple[str, ...]
) -> None:
    assert allowed_actions(research, data, can_retry=retry) == allowed  # type: ignore[arg-type]


def verdict(**fields: object) -> JudgeVerdict:
    base: dict[str, object] = {
        "data_quality_tier": "CLEAN",
        "research_quality_tier": "HIGH",
        "data_confidence_score": 90,
        "recommended_action": "CONTINUE",
    }
    return JudgeVerdict.model_validate({**base, **fields})


def test_the_judge_may_lower_a_tier_but_never_raise_one() -> None:
    inputs = make(1, 2)  # MEDIUM / PARTIAL by the counts
    raised = combine(decide(inputs), verdict(), inputs)
    assert (raised.research_quality_tier, raised.data_quality_tier) == ("MEDIUM", "PARTIAL")
    assert raised.data_confidence_score == 74  # placed in MEDIUM's range
    assert raised.recommended_action == "CONTINUE"  # allowed at MEDIUM
    assert raised.evaluated_by == "judge" and "Guardrails" in raised.reasoning_trace
    lowered = combine(
        decide(make(3, 3)),
        verdict(
            data_quality_tier="UNRELIABLE",
            research_quality_tier="LOW",
            data_confidence_score=20,
            recommended_action="ENHANCE_SEARCH",
        ),
        make(3, 3),
    )
    assert (lowered.data_quality_tier, lowered.research_quality_tier) == ("UNRELIABLE", "LOW")
    assert lowered.recommended_action == "ENHANCE_SEARCH" and lowered.enhancement_queries


def test_an_action_the_tier_does_not_allow_is_replaced() -> None:
    inputs = make(3, 3)
    out = combine(decide(inputs), verdict(recommended_action="EARLY_EXIT"), inputs)
    assert out.recommended_action == "CONTINUE"  # HIGH allows only CONTINUE
    retry_spent = make(1, 0, attempt=2)
    out = combine(
        decide(retry_spent),
        verdict(
            research_quality_tier="LOW",
            data_quality_tier="SPARSE",
            recommended_action="ENHANCE_SEARCH",
        ),
        retry_spent,
    )
    assert out.recommended_action == "CONTINUE_WITH_FLAGS"


def test_a_judge_that_finds_the_company_suspicious_exits() -> None:
    inputs = make(3, 3)
    out = combine(
        decide(inputs),
        verdict(company_verifiability="SUSPICIOUS", recommended_action="CONTINUE"),
        inputs,
    )
    assert (out.company_verifiability, out.data_quality_tier, out.recommended_action) == (
        "SUSPICIOUS", "GARBAGE", "EARLY_EXIT",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("inputs", "action"),
    [
        (make(3, 3), "CONTINUE_WITH_FLAGS"),
        (make(1, 0), "CONTINUE_WITH_FLAGS"),  # no retry after an evaluation error
        (make(0, 0, summary="Acme."), "EARLY_EXIT"),  # garbage
        (make(3, 3, company="TestCorp"), "EARLY_EXIT"),  # critical
    ],
)
def test_after_an_evaluation_error_the_heuristics_decide(inputs: Inputs, action: str) -> None:
    out = after_evaluation_error(decide(inputs), inputs)
    assert out.recommended_action == action
    assert "EVALUATION_ERROR" in out.quality_flags and not out.enhancement_queries
    assert out.evaluated_by == "heuristics_after_error"
