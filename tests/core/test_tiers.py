"""Tier, authority and source-type rules from the package data file and user overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.core.tiers import (
    DomainRules,
    authority_for,
    normalize_entry,
    source_type_for,
    tier_for,
)
from deepresearch.domain_rules import load_domain_rules


@pytest.fixture(scope="module")
def rules() -> DomainRules:
    return load_domain_rules()


def user_rules(tmp_path: Path, text: str) -> DomainRules:
    path = tmp_path / "domains.toml"
    path.write_text(text, encoding="utf-8")
    return load_domain_rules(path)


@pytest.mark.parametrize(
    ("url", "tier"),
    [
        ("https://www.census.gov/data", "PRIMARY_SOURCE"),
        ("https://cs.stanford.edu/paper", "PRIMARY_SOURCE"),
        ("https://www.army.mil/", "PRIMARY_SOURCE"),
        ("https://www.gov.uk/guidance", "PRIMARY_SOURCE"),
        ("https://arxiv.org/abs/1", "PRIMARY_SOURCE"),
        ("https://www.reuters.com/world", "AUTHORITATIVE"),
        ("https://news.bbc.co.uk/x", "AUTHORITATIVE"),  # subdomain of bbc.co.uk
        ("https://en.wikipedia.org/wiki/Sun", "SECONDARY"),
        ("https://www.britannica.com/x", "SECONDARY"),
        ("https://someone.blogspot.com/", "UNVERIFIED"),
        ("https://unknown-site.example/", "UNVERIFIED"),
        ("https://notbbc.co.uk/", "UNVERIFIED"),  # whole labels only
        ("https://www.infowars.com/", "FLAGGED"),
        ("file:///home/me/notes.txt", "SECONDARY"),  # the local corpus
        ("mailto:someone@example.com", "UNVERIFIED"),  # no host
    ],
)
def test_package_tiers(rules: DomainRules, url: str, tier: str) -> None:
    assert tier_for(url, rules) == tier


@pytest.mark.parametrize(
    ("url", "authority"),
    [
        ("https://www.nature.com/articles/x", 95),  # per-domain override
        ("https://en.wikipedia.org/wiki/Sun", 75),
        ("https://www.census.gov/", 90),  # PRIMARY_SOURCE default
        ("https://www.nytimes.com/", 80),  # AUTHORITATIVE default
        ("https://unknown-site.example/", 30),  # UNVERIFIED default
        ("https://www.infowars.com/", 0),
        ("file:///a.txt", 65),
    ],
)
def test_package_authority(rules: DomainRules, url: str, authority: int) -> None:
    assert authority_for(url, rules) == authority


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://www.youtube.com/watch?v=1", "video"),
        ("https://youtu.be/1", "video"),
        ("https://vimeo.com/1", "video"),
        ("https://twitter.com/a", "social"),
        ("https://x.com/a", "social"),
        ("https://www.reddit.com/r/a", "social"),
        ("https://www.tiktok.com/@a", "social"),
        ("https://www.instagram.com/a", "social"),
        ("https://de.wikipedia.org/wiki/A", "wiki"),
        ("https://arxiv.org/abs/1", "academic"),
        ("https://doi.org/10.1/x", "academic"),
        ("https://pubmed.ncbi.nlm.nih.gov/1", "academic"),
        ("https://cs.stanford.edu/p", "academic"),
        ("https://ieeexplore.ieee.org/x", "academic"),
        ("https://www.reuters.com/x", "news"),
        ("https://unknown-site.example/", "other"),
        ("file:///a.txt", "other"),
    ],
)
def test_package_source_types(rules: DomainRules, url: str, kind: str) -> None:
    assert source_type_for(url, rules) == kind


def test_every_tier_has_a_default_authority(rules: DomainRules) -> None:
    assert rules.authority_defaults == {
        "PRIMARY_SOURCE": 90,
        "AUTHORITATIVE": 80,
        "SECONDARY": 65,
        "UNVERIFIED": 30,
        "FLAGGED": 0,
    }


def test_package_entries_are_normalized(rules: DomainRules) -> None:
    for table in (rules.tiers, rules.authority, rules.source_types):
        assert all(entry == normalize_entry(entry) for entry in table)


def test_normalize_entry() -> None:
    assert normalize_entry(" .WWW.Example.COM ") == "example.com"


def test_user_file_adds_trusted_and_blocked(tmp_path: Path) -> None:
    rules = user_rules(
        tmp_path,
        'trusted = ["intranet.example.com"]\nblocked = ["www.reuters.com", "spam.example"]\n',
    )
    assert tier_for("https://wiki.intranet.example.com/p", rules) == "AUTHORITATIVE"
    assert tier_for("https://spam.example/", rules) == "FLAGGED"
    assert tier_for("https://www.reuters.com/", rules) == "FLAGGED"  # overrides the package
    assert authority_for("https://spam.example/", rules) == 0
    assert tier_for("https://www.census.gov/", rules) == "PRIMARY_SOURCE"  # package kept


def test_user_file_overrides_everything(tmp_path: Path) -> None:
    rules = user_rules(
        tmp_path,
        """
default_tier = "SECONDARY"

[local_corpus]
tier = "PRIMARY_SOURCE"
authority = 100

[domains]
UNVERIFIED = ["blogs.example.gov"]

[authority.default]
SECONDARY = 50

[authority.domains]
"reuters.com" = 99

[source_types]
video = ["media.example.org"]
""",
    )
    assert tier_for("https://unknown-site.example/", rules) == "SECONDARY"
    assert authority_for("https://unknown-site.example/", rules) == 50
    assert tier_for("file:///a.txt", rules) == "PRIMARY_SOURCE"
    assert authority_for("file:///a.txt", rules) == 100
    # the longest match wins: the domain rule beats the "gov" suffix
    assert tier_for("https://blogs.example.gov/", rules) == "UNVERIFIED"
    assert tier_for("https://data.example.gov/", rules) == "PRIMARY_SOURCE"
    assert authority_for("https://www.reuters.com/", rules) == 99
    assert source_type_for("https://media.example.org/x", rules) == "video"
    assert rules.authority_defaults["PRIMARY_SOURCE"] == 90  # other defaults kept


def test_user_file_with_unknown_key_fails(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown keys"):
        user_rules(tmp_path, 'trustd = ["a.example"]\n')


def test_user_file_with_domain_in_two_tiers_fails(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="both"):
        user_rules(tmp_path, '[domains]\nSECONDARY = ["a.example"]\nFLAGGED = ["a.example"]\n')


def test_user_file_with_unknown_tier_fails(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        user_rules(tmp_path, '[domains]\nGOLDEN = ["a.example"]\n')
