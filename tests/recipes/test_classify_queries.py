"""Phase 1 (input classification and entities) and seed 000's query strategies (6.3) and
enhancement queries (12.2)."""

from __future__ import annotations

import pytest

from deepresearch.recipes.employer.classify import (
    EntityExtraction,
    classify_input,
    find_company,
    find_job_title,
    merge_extraction,
)
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import Classification, EmployerRequest
from deepresearch.recipes.employer.queries import generate_enhancement_queries, research_queries

from .conftest import JOB_POSTING


def test_a_name_is_a_company(lists: EmployerLists) -> None:
    c = classify_input(EmployerRequest(company="  Google  ", role="SRE"), lists)
    assert c == Classification(query_type="company", company_name="Google", job_title="SRE")


def test_a_posting_file_is_a_job_description(lists: EmployerLists) -> None:
    c = classify_input(
        EmployerRequest(company="Google", job_description=JOB_POSTING.read_text()), lists
    )
    assert c.query_type == "job_description"
    assert c.company_name == "Google" and c.job_title == "Software Engineer"
    assert c.extracted_skills == ["C++", "Go", "Linux", "Kubernetes", "Docker", "Vulkan", "WebRTC"]


def test_a_posting_passed_as_the_company_argument_is_recognised(lists: EmployerLists) -> None:
    c = classify_input(EmployerRequest(company=JOB_POSTING.read_text()), lists)
    assert c.query_type == "job_description"
    assert c.company_name == "Google"  # found in "Google is hiring a Software Engineer"


@pytest.mark.parametrize(
    ("text", "company"),
    [
        ("Company: Acme Robotics\nWe build robots.", "Acme Robotics"),
        ("About Stripe\nStripe builds payments infrastructure.", "Stripe"),
        ("Shopify is hiring a backend developer.", "Shopify"),
        ("Join the team at Datadog, where we monitor everything.", "Datadog"),
        ("We are hiring. You will write code.", None),
    ],
)
def test_company_extraction(text: str, company: str | None) -> None:
    assert find_company(text) == company


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Title: Staff Data Engineer\n...", "Staff Data Engineer"),
        ("We are looking for a Senior Backend Developer to join us.", "Senior Backend Developer"),
        ("Machine Learning Engineer\nAbout the role", "Machine Learning Engineer"),
        ("Nothing here.", None),
    ],
)
def test_title_extraction(text: str, title: str | None) -> None:
    assert find_job_title(text) == title


def test_a_request_needs_something_to_research() -> None:
    with pytest.raises(ValueError, match="company name or a job description"):
        EmployerRequest(company="  ")


def test_the_models_entities_count_only_when_they_are_in_the_text() -> None:
    rules = Classification(query_type="job_description", extracted_skills=["Go"])
    answer = EntityExtraction(
        query_type="company",
        company_name="Initech",  # not in the text: ignored
        job_title="Platform Engineer",
        extracted_skills=["Kafka", "COBOL"],  # COBOL is not in the text
    )
    text = "We need a Platform Engineer who knows Kafka and Go."
    merged = merge_extraction(rules, answer, text)
    assert merged.query_type == "job_description"
    assert merged.company_name is None and merged.job_title == "Platform Engineer"
    assert merged.extracted_skills == ["Kafka", "Go"] and merged.decided_by == "model"
    kept = merge_extraction(
        rules.model_copy(update={"job_title": "SRE"}), answer, text, keep_title=True
    )
    assert kept.job_title == "SRE"


def test_company_queries_are_the_seeds() -> None:
    c = Classification(query_type="company", company_name="Stripe")
    assert research_queries(c) == [
        "Stripe software engineer tech stack engineering culture",
        "Stripe careers jobs software developer requirements",
    ]
    with_role = c.model_copy(update={"job_title": "Data Engineer"})
    assert research_queries(with_role)[0] == "Stripe Data Engineer tech stack engineering culture"
    assert len(research_queries(c, max_queries=1)) == 1
    assert len(research_queries(c, max_queries=4)) == 4


def test_job_description_queries_are_the_seeds() -> None:
    known = Classification(
        query_type="job_description",
        company_name="Stripe",
        job_title="Backend Engineer",
        extracted_skills=["Ruby", "Go", "Kafka", "Redis"],
    )
    assert research_queries(known) == [
        "Backend Engineer Ruby Go Kafka requirements tech stack",  # three skills at most
        "Stripe engineering team culture values",
    ]
    unknown = known.model_copy(update={"company_name": None})
    assert research_queries(unknown)[1] == "Ruby engineer job requirements industry trends"
    bare = Classification(query_type="job_description")
    assert research_queries(bare) == [
        "software engineer requirements tech stack",
        "software engineer job requirements industry trends",
    ]


def test_enhancement_queries_follow_the_seed() -> None:
    assert generate_enhancement_queries("Acme", "SRE", "fintech") == [
        "Acme github engineering open source",
        "Acme engineering blog technology",
        "Acme linkedin engineering team",
        "Acme crunchbase funding technology stack",
    ]  # limited to four: the glassdoor and industry queries fall off, as in the seed
    assert generate_enhancement_queries(None, "SRE", "fintech") == [
        "fintech SRE typical tech stack 2024"
    ]
    assert generate_enhancement_queries(None, "SRE", None) == []
    assert generate_enhancement_queries("", None, "gaming") == []


def test_a_question_and_options_become_a_request() -> None:
    from deepresearch.errors import ConfigError
    from deepresearch.recipes.registry import get_recipe

    recipe = get_recipe("employer")
    request = recipe.request("Google", {"role": "SRE", "max_queries": 1})
    assert (request.company, request.role, request.max_queries) == ("Google", "SRE", 1)
    with pytest.raises(ConfigError, match="max_queries: Input should be less than or equal to 4"):
        recipe.request("Google", {"max_queries": 9})
    with pytest.raises(ConfigError, match="depth: Extra inputs are not permitted"):
        recipe.request("Google", {"depth": "quick"})  # a Settings field, not the recipe's
    with pytest.raises(ConfigError, match="give a company name or a job description"):
        recipe.request(None, {"role": "SRE"})
