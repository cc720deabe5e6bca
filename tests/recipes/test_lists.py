"""The recipe's lists are data: the package holds the seed's, a user file extends them,
and a broken file is a configuration error at start."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.errors import ConfigError
from deepresearch.recipes.employer.bad_data import screen_name
from deepresearch.recipes.employer.industry import infer_industry_from_context
from deepresearch.recipes.employer.lists import load_employer_lists
from deepresearch.recipes.employer.prune import generic_requirement, is_generic_tech, is_platitude


def test_the_package_holds_the_seeds_lists() -> None:
    lists = load_employer_lists()
    assert len(lists.generic_tech_terms) == 17
    assert len(lists.generic_requirement_patterns) == 10
    assert len(lists.platitude_culture_signals) == 12
    assert [industry.name for industry in lists.industries] == [
        "fintech", "ai_ml", "saas_b2b", "e_commerce", "streaming_media", "healthcare",
        "gaming", "cybersecurity",
    ]  # fmt: skip


def test_a_user_file_extends_every_list(tmp_path: Path) -> None:
    extra = tmp_path / "mine.toml"
    extra.write_text(
        """
generic_tech_terms = ["synergy platform"]
generic_requirement_patterns = ['rockstar']
platitude_culture_signals = ["family atmosphere"]
suspicious_name_patterns = ['lorem ipsum']
technologies = ["Zig"]

[industries.robotics]
signals = ["robotics", "robots"]
technologies = ["C++", "ROS", "Python"]
""",
        encoding="utf-8",
    )
    lists = load_employer_lists(extra)
    assert is_generic_tech("Synergy Platform", lists) and is_generic_tech("cloud", lists)
    assert generic_requirement("A coding rockstar", lists) is not None
    assert is_platitude("A family atmosphere", lists) and is_platitude("great benefits", lists)
    assert screen_name("Lorem Ipsum GmbH", lists) is not None
    assert "Zig" in lists.technologies
    found = infer_industry_from_context("Acme Robots", "We build robotics kits.", None, lists)
    assert found is not None and found.industry == "robotics"
    assert len(lists.industries) == 9


def test_an_industry_table_replaces_the_packages(tmp_path: Path) -> None:
    extra = tmp_path / "mine.toml"
    extra.write_text('[industries.fintech]\nsignals = ["neobank"]\ntechnologies = ["Kotlin"]\n')
    lists = load_employer_lists(extra)
    fintech = next(industry for industry in lists.industries if industry.name == "fintech")
    assert fintech.signals == ("neobank",) and fintech.technologies == ("Kotlin",)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("generic_requirement_patterns = ['(unclosed']", "not a valid regular expression"),
        ("mystery = []", "unknown keys"),
        ("generic_tech_terms = 'cloud'", "must be a list of strings"),
        ("[industries.x]\nsignals = 'a'", "must be a list of strings"),
        ("generic_tech_terms = [", "cannot read"),
    ],
)
def test_a_broken_user_file_is_a_configuration_error(
    tmp_path: Path, content: str, problem: str
) -> None:
    extra = tmp_path / "bad.toml"
    extra.write_text(content)
    with pytest.raises(ConfigError, match=problem):
        load_employer_lists(extra)


def test_a_missing_user_file_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_employer_lists(tmp_path / "absent.toml")
