"""Seed 000, section 10: industry inference for sparse tech stacks, labelled as inferred
and kept apart from what was found."""

from __future__ import annotations

import pytest

from deepresearch.recipes.employer.industry import infer_industry_from_context, inferred_items
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import Phase2Output, ProfileItem, SourceInfo
from deepresearch.recipes.employer.rerank import decide, gather_inputs

# (industry, a context naming its signals, its representative technologies: seed 10.2)
SEED_INDUSTRIES = [
    ("fintech", "a fintech for payments and banking", ["Python", "Java", "Go", "PostgreSQL", "Kafka"]),
    ("ai_ml", "machine learning and deep learning research", ["Python", "PyTorch", "TensorFlow", "CUDA"]),
    ("saas_b2b", "enterprise b2b saas sold by subscription", ["TypeScript", "Python", "React", "AWS"]),
    ("e_commerce", "an e-commerce marketplace for retail", ["Python", "Node.js", "PostgreSQL", "Redis"]),
    ("streaming_media", "video streaming of media content", ["Java", "Scala", "Go", "Kafka", "Spark"]),
    ("healthcare", "healthcare software for medical patient records under HIPAA", ["Python", "Java", "PostgreSQL", "FHIR"]),
    ("gaming", "gaming studio for esports built with Unity and Unreal", ["C++", "C#", "Unity", "Go", "Redis"]),
    ("cybersecurity", "infosec threat and vulnerability security research", ["Python", "Go", "Rust", "Linux", "Splunk"]),
]  # fmt: skip


@pytest.mark.parametrize(("industry", "context", "technologies"), SEED_INDUSTRIES)
def test_each_industry_is_inferred_from_its_signals(
    industry: str, context: str, technologies: list[str], lists: EmployerLists
) -> None:
    found = infer_industry_from_context("Acme", f"Acme builds {context}.", None, lists)
    assert found is not None
    assert found.industry == industry
    assert found.technologies == technologies  # the top five (or fewer)
    assert found.score == len(found.matched_signals) >= 2


def test_the_job_title_and_company_name_count_too(lists: EmployerLists) -> None:
    found = infer_industry_from_context("Acme Payments", "", "Banking Platform Engineer", lists)
    assert found is not None and found.industry == "fintech"
    assert found.matched_signals == ["payments", "banking"]


def test_the_highest_score_wins_and_ties_go_to_table_order(lists: EmployerLists) -> None:
    found = infer_industry_from_context(
        "Acme", "video streaming for gaming, esports and Unity developers", None, lists
    )
    assert found is not None and found.industry == "gaming"  # 3 signals beat streaming's 2
    assert found.score == 3
    tie = infer_industry_from_context("Acme", "payments and streaming", None, lists)
    assert tie is not None and tie.industry == "fintech"  # 1 each: fintech comes first


def test_signals_match_whole_words_only(lists: EmployerLists) -> None:
    # the seed matched substrings: "ai" in "maintain", "ml" in "html", "media" in "intermediate"
    assert (
        infer_industry_from_context(
            "Acme", "We maintain HTML for intermediate clients", None, lists
        )
        is None
    )


def test_no_signal_no_inference(lists: EmployerLists) -> None:
    assert infer_industry_from_context("Acme", "A company.", "Engineer", lists) is None


def test_inferred_technologies_are_labelled_and_exclude_found_ones(lists: EmployerLists) -> None:
    found = infer_industry_from_context("Acme", "payments banking", None, lists)
    assert found is not None
    items = inferred_items(found, [ProfileItem(text="python", evidence=["E1"])])
    assert [i.text for i in items] == ["Java", "Go", "PostgreSQL", "Kafka"]
    assert all(i.inferred and not i.evidence and "fintech" in i.basis for i in items)


SUMMARY = "Acme is a fintech company that builds payments and banking software for small shops."


def sparse(tech: list[str]) -> Phase2Output:
    return Phase2Output(
        employer_summary=SUMMARY,
        tech_stack=[ProfileItem(text=t, evidence=["E1"]) for t in tech],
        identified_requirements=[
            ProfileItem(text="Three years of experience with payment systems", evidence=["E1"])
        ],
    )


def decide_for(phase2: Phase2Output, lists: EmployerLists):  # type: ignore[no-untyped-def]
    sources = [SourceInfo(id="s1", url="http://x/1", names_company=True)]
    inputs = gather_inputs(
        phase2, lists, company_name="Acme", job_title=None, sources=sources, search_attempt=1
    )
    return decide(inputs)


@pytest.mark.parametrize("tech", [[], ["Kotlin"]])
def test_inference_runs_when_fewer_than_two_technologies_were_found(
    tech: list[str], lists: EmployerLists
) -> None:
    out = decide_for(sparse(tech), lists)
    cleaned = out.cleaned_data
    assert cleaned.inferred_industry is not None and cleaned.inferred_industry.industry == "fintech"
    assert "INDUSTRY_INFERRED" in out.quality_flags
    # never mixed with found facts: the found stack holds only what a source named
    assert [i.text for i in cleaned.tech_stack] == tech
    assert all(i.inferred for i in cleaned.inferred_tech_stack)
    assert not any(i.inferred for i in cleaned.tech_stack)
    # and inference does not count towards the tiers
    assert out.research_quality_tier == "LOW"


def test_no_inference_with_two_technologies(lists: EmployerLists) -> None:
    out = decide_for(sparse(["Kotlin", "Kafka"]), lists)
    assert out.cleaned_data.inferred_industry is None and not out.cleaned_data.inferred_tech_stack
