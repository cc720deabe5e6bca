"""Bad-data detection (seed 000, 11), pure: the categories present, suspicious names
(injection, templates, tags) and the risk level."""

from __future__ import annotations

from collections.abc import Sequence

from deepresearch.injection.suspicious import suspicious_reason
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import BadDataReport, Phase2Output, RiskLevel
from deepresearch.recipes.employer.prune import Pruned, prune_low_quality_data

#: seed 000, 11.2: this many bad-data categories make the risk HIGH
HIGH_RISK_PATTERNS = 3

# the categories (seed 000, 11.1), as patterns_detected names them
GENERIC_TECH = "generic_tech_terms"
GENERIC_REQUIREMENTS = "generic_requirement_patterns"
PLATITUDES = "platitude_culture_signals"
SUSPICIOUS_NAME = "suspicious_company_name"
HALLUCINATION = "hallucination_signals"
SUSPICIOUS_INPUT = "suspicious_input"


def screen_name(name: str | None, lists: EmployerLists) -> str | None:
    """Why a company name or job title is suspicious (seed 11.1: injection, templates,
    tags), or None. The seed's patterns live in ``deepresearch.injection.suspicious``; the
    user's lists may add more."""
    text = (name or "").strip()
    if not text:
        return None
    reason = suspicious_reason(text)
    if reason:
        return reason
    for pattern in lists.suspicious_name_patterns:
        if pattern.search(text):
            return f"matches the suspicious-name pattern {pattern.pattern!r}"
    return None


def risk_level(patterns: Sequence[str], *, suspicious: bool) -> RiskLevel:
    """Seed 11.2's escalation, with one change: a suspicious name is CRITICAL whatever
    else was found. (In the seed's order three other patterns would make it HIGH, and
    the early exit for an injected name would depend on how much else went wrong.)"""
    if suspicious:
        return "CRITICAL"
    if len(patterns) >= HIGH_RISK_PATTERNS:
        return "HIGH"
    if patterns:
        return "MEDIUM"
    return "LOW"


def detect_bad_data_patterns(
    phase2: Phase2Output,
    company_name: str | None,
    lists: EmployerLists,
    *,
    job_title: str | None = None,
    pruned: Pruned | None = None,
) -> BadDataReport:
    """Seed 11: which categories of bad data are present, with the items, and the risk."""
    pruned = pruned or prune_low_quality_data(phase2, lists)
    details: dict[str, list[str]] = {}
    if pruned.pruned.tech_stack:
        details[GENERIC_TECH] = list(pruned.pruned.tech_stack)
    if pruned.pruned.identified_requirements:
        details[GENERIC_REQUIREMENTS] = list(pruned.pruned.identified_requirements)
    if pruned.pruned.culture_signals:
        details[PLATITUDES] = list(pruned.pruned.culture_signals)
    reason = screen_name(company_name, lists) or screen_name(job_title, lists)
    if reason:
        details[SUSPICIOUS_NAME] = [reason]
    if phase2.unsupported:
        details[HALLUCINATION] = list(phase2.unsupported)
    patterns = list(details)
    return BadDataReport(
        patterns_detected=patterns,
        details=details,
        risk_level=risk_level(patterns, suspicious=reason is not None),
        suspicious_reason=reason,
    )
