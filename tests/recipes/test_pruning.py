"""Seed 000, 11.1: every generic tech term, every generic requirement pattern and every
platitude is pruned, and what says something specific is kept."""

from __future__ import annotations

import pytest

from deepresearch.recipes.employer.bad_data import detect_bad_data_patterns
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import Phase2Output, ProfileItem
from deepresearch.recipes.employer.prune import (
    generic_requirement,
    is_generic_tech,
    is_platitude,
    prune_low_quality_data,
)

SEED_GENERIC_TECH = [
    "modern stack", "cloud", "databases", "web technologies", "modern technologies",
    "cutting-edge", "best practices", "agile", "devops", "full stack", "backend", "frontend",
    "microservices", "api", "rest", "scalable", "distributed",
]  # fmt: skip
SEED_PLATITUDES = [
    "innovative culture", "great benefits", "competitive salary", "work-life balance",
    "collaborative environment", "fast-growing", "exciting opportunity", "dynamic team",
    "cutting-edge", "industry leader", "passionate team", "make an impact",
]  # fmt: skip
# one short example per seed pattern, in the seed's order
SEED_REQUIREMENT_EXAMPLES = [
    ("Must have experience with computers", r"must have experience"),
    ("Strong communication", r"strong (communication|skills|background)"),
    ("Strong skills", r"strong (communication|skills|background)"),
    ("A strong background", r"strong (communication|skills|background)"),
    ("Team player", r"team player"),
    ("Thrives in a fast-paced environment", r"fast-paced environment"),
    ("Passion for technology", r"passion for"),
    ("Self-starter", r"self-starter"),
    ("Excellent written English", r"excellent (written|verbal)"),
    ("Excellent verbal skills", r"excellent (written|verbal)"),
    ("Ability to work independently", r"ability to (work|learn|adapt)"),
    ("Ability to learn quickly", r"ability to (work|learn|adapt)"),
    ("Ability to adapt", r"ability to (work|learn|adapt)"),
    ("Problem solving", r"problem.?solving"),
    ("Problem-solving mindset", r"problem.?solving"),
    ("Detail oriented", r"detail.?oriented"),
    ("Detail-oriented engineer", r"detail.?oriented"),
]


@pytest.mark.parametrize("term", SEED_GENERIC_TECH)
def test_every_generic_tech_term_is_pruned(term: str, lists: EmployerLists) -> None:
    assert is_generic_tech(term, lists)
    assert is_generic_tech(f"  {term.upper()}. ", lists)  # case, spaces, trailing punctuation


@pytest.mark.parametrize("term", ["Google Cloud", "PostgreSQL", "REST Assured", "Kubernetes"])
def test_specific_technologies_are_kept(term: str, lists: EmployerLists) -> None:
    assert not is_generic_tech(term, lists)


@pytest.mark.parametrize(("text", "pattern"), SEED_REQUIREMENT_EXAMPLES)
def test_every_generic_requirement_pattern_prunes_short_items(
    text: str, pattern: str, lists: EmployerLists
) -> None:
    assert generic_requirement(text, lists) == pattern


def test_the_seed_has_ten_requirement_patterns_and_each_is_exercised(lists: EmployerLists) -> None:
    exercised = {pattern for _, pattern in SEED_REQUIREMENT_EXAMPLES}
    assert exercised == {p.pattern for p in lists.generic_requirement_patterns}


def test_a_long_requirement_with_a_generic_phrase_is_kept(lists: EmployerLists) -> None:
    # ten words or more: it says something specific besides the platitude
    text = "Strong communication skills to explain Kafka consumer lag to product managers weekly"
    assert generic_requirement(text, lists) is None
    nine = "Team player who reviews Go code every single day"
    assert len(nine.split()) == 9 and generic_requirement(nine, lists) is not None


@pytest.mark.parametrize("phrase", SEED_PLATITUDES)
def test_every_platitude_is_pruned(phrase: str, lists: EmployerLists) -> None:
    assert is_platitude(phrase, lists)
    assert is_platitude(phrase.title() + ".", lists)


@pytest.mark.parametrize(
    "text", ["We offer great benefits", "A truly dynamic team!", "Competitive salary and equity"]
)
def test_a_platitude_with_two_other_words_at_most_is_pruned(
    text: str, lists: EmployerLists
) -> None:
    assert is_platitude(text, lists)


@pytest.mark.parametrize(
    "text",
    [
        "Privacy is a fundamental human right, and engineers make an impact on it daily",
        "Engineers work remotely from 14 countries with a written-first culture",
        "Apple runs entirely on renewable energy",
    ],
)
def test_specific_culture_signals_are_kept(text: str, lists: EmployerLists) -> None:
    assert not is_platitude(text, lists)


def test_prune_low_quality_data_reports_what_it_removed(lists: EmployerLists) -> None:
    def items(*texts: str) -> list[ProfileItem]:
        return [ProfileItem(text=t, evidence=["E1"]) for t in texts]

    phase2 = Phase2Output(
        tech_stack=items("Python", "cloud", "Kafka", "Agile"),
        identified_requirements=items("Team player", "5+ years of experience with Kafka"),
        culture_signals=items("Great benefits", "Engineers own services end to end"),
        unsupported=["tech_stack: COBOL"],
    )
    pruned = prune_low_quality_data(phase2, lists)
    assert [i.text for i in pruned.retained_tech] == ["Python", "Kafka"]
    assert [i.text for i in pruned.retained_requirements] == ["5+ years of experience with Kafka"]
    assert [i.text for i in pruned.retained_culture] == ["Engineers own services end to end"]
    assert pruned.pruned.tech_stack == ["cloud", "Agile"]
    assert pruned.pruned.identified_requirements == ["Team player"]
    assert pruned.pruned.culture_signals == ["Great benefits"]
    assert pruned.pruned.unsupported == ["tech_stack: COBOL"]
    report = detect_bad_data_patterns(phase2, "Acme", lists, pruned=pruned)
    assert report.patterns_detected == [
        "generic_tech_terms", "generic_requirement_patterns", "platitude_culture_signals",
        "hallucination_signals",
    ]  # fmt: skip
    assert report.details["generic_tech_terms"] == ["cloud", "Agile"]
    assert report.risk_level == "HIGH"  # three or more categories
