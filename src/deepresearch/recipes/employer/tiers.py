"""The quality tiers (seed 000, 7.2, 9.1, 9.2), pure: counts after pruning give the
data-quality tier and the preliminary research-quality tier; confidence scores and the
actions each tier allows."""

from __future__ import annotations

from deepresearch.core.text import words
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import (
    DATA_TIERS,
    RESEARCH_TIERS,
    Action,
    CompanyVerification,
    DataQualityTier,
    HeuristicAssessment,
    Phase2Output,
    ResearchQualityTier,
    RiskLevel,
)
from deepresearch.recipes.employer.prune import Pruned, prune_low_quality_data

# seed 000, 7.2
MIN_TECH_STACK_HIGH = 3
MIN_TECH_STACK_MEDIUM = 1
MIN_REQUIREMENTS_HIGH = 3
MIN_REQUIREMENTS_MEDIUM = 2
MIN_EMPLOYER_SUMMARY_WORDS = 15
# seed 000, 9.2: below this many summary words, "no data" is GARBAGE rather than SPARSE
GARBAGE_SUMMARY_WORDS = 10

#: seed 000, 9.1: each research-quality tier's confidence range
CONFIDENCE_RANGES: dict[ResearchQualityTier, tuple[int, int]] = {
    "HIGH": (75, 100),
    "MEDIUM": (40, 74),
    "LOW": (15, 39),
    "INSUFFICIENT": (0, 14),
}

# flags that keep data from being CLEAN ("tech>=3, requirements>=3, no flags")
SHORT_SUMMARY = "SHORT_SUMMARY"
HALLUCINATION_SIGNALS = "HALLUCINATION_SIGNALS"
COMPANY_NOT_FOUND = "COMPANY_NOT_FOUND_IN_SOURCES"
BLOCKING_FLAGS = frozenset({SHORT_SUMMARY, HALLUCINATION_SIGNALS, COMPANY_NOT_FOUND})


def tiers_for_counts(
    tech_count: int, requirement_count: int, summary_words: int
) -> tuple[ResearchQualityTier, DataQualityTier]:
    """Seed 9.2, exactly: (preliminary research tier, data-quality tier)."""
    if tech_count >= MIN_TECH_STACK_HIGH and requirement_count >= MIN_REQUIREMENTS_HIGH:
        return "HIGH", "CLEAN"
    if tech_count >= MIN_TECH_STACK_MEDIUM and requirement_count >= MIN_REQUIREMENTS_MEDIUM:
        return "MEDIUM", "PARTIAL"
    if tech_count == 0 and requirement_count == 0:
        return "INSUFFICIENT", "GARBAGE" if summary_words < GARBAGE_SUMMARY_WORDS else "SPARSE"
    return "LOW", "SPARSE"


def assess_quality_heuristically(
    phase2: Phase2Output, lists: EmployerLists
) -> tuple[HeuristicAssessment, Pruned]:
    """Seed 9.2: count after pruning, then tier. CLEAN also needs no blocking flag (a
    short summary, items a model made up): such data is PARTIAL, and HIGH becomes MEDIUM."""
    pruned = prune_low_quality_data(phase2, lists)
    tech = len(pruned.retained_tech)
    requirements = len(pruned.retained_requirements)
    culture = len(pruned.retained_culture)
    summary_words = len(words(phase2.employer_summary))
    preliminary, data_tier = tiers_for_counts(tech, requirements, summary_words)
    flags: list[str] = []
    if summary_words < MIN_EMPLOYER_SUMMARY_WORDS:
        flags.append(SHORT_SUMMARY)
    if tech < MIN_TECH_STACK_HIGH:
        flags.append("SPARSE_TECH_STACK")
    if requirements < MIN_REQUIREMENTS_HIGH:
        flags.append("SPARSE_REQUIREMENTS")
    if culture == 0:
        flags.append("NO_CULTURE_SIGNALS")
    if pruned.pruned.tech_stack or pruned.pruned.identified_requirements:
        flags.append("GENERIC_DATA_PRUNED")
    if pruned.pruned.culture_signals:
        flags.append("PLATITUDES_PRUNED")
    if phase2.unsupported:
        flags.append(HALLUCINATION_SIGNALS)
    if data_tier == "CLEAN" and BLOCKING_FLAGS & set(flags):
        preliminary, data_tier = "MEDIUM", "PARTIAL"
    missing = [
        name
        for name, count in (
            ("employer_summary", summary_words >= MIN_EMPLOYER_SUMMARY_WORDS),
            ("tech_stack", tech),
            ("identified_requirements", requirements),
            ("culture_signals", culture),
        )
        if not count
    ]
    assessment = HeuristicAssessment(
        tech_count=tech,
        requirement_count=requirements,
        culture_count=culture,
        summary_words=summary_words,
        preliminary_tier=preliminary,
        data_quality_tier=data_tier,
        quality_flags=flags,
        missing_data_categories=missing,
    )
    return assessment, pruned


def research_tier_for_confidence(score: int) -> ResearchQualityTier:
    """Seed 9.1: the research-quality tier a confidence score falls in."""
    for tier in RESEARCH_TIERS:
        low, high = CONFIDENCE_RANGES[tier]
        if low <= score <= high:
            return tier
    raise ValueError(f"confidence {score} is outside 0-100")


def clamp_confidence(score: int, tier: ResearchQualityTier) -> int:
    low, high = CONFIDENCE_RANGES[tier]
    return max(low, min(high, score))


def heuristic_confidence(
    assessment: HeuristicAssessment,
    verification: CompanyVerification,
    risk: RiskLevel,
    tier: ResearchQualityTier,
) -> int:
    """A score from the counts (10 per technology up to 5, 10 per requirement up to 4, 5
    per culture signal up to 2, 10 for a summary of at least 15 words, 10 when two pages
    name the company, 5 when one does, minus 10 or 20 for MEDIUM or HIGH risk), placed in
    ``tier``'s range so the score and the tier never disagree."""
    raw = (
        10 * min(assessment.tech_count, 5)
        + 10 * min(assessment.requirement_count, 4)
        + 5 * min(assessment.culture_count, 2)
        + (10 if assessment.summary_words >= MIN_EMPLOYER_SUMMARY_WORDS else 0)
        + {"VERIFIED": 10, "PARTIAL": 5}.get(verification.status, 0)
        - {"MEDIUM": 10, "HIGH": 20}.get(risk, 0)
    )
    return clamp_confidence(max(0, min(100, raw)), tier)


def worse_research(a: ResearchQualityTier, b: ResearchQualityTier) -> ResearchQualityTier:
    return RESEARCH_TIERS[max(RESEARCH_TIERS.index(a), RESEARCH_TIERS.index(b))]


def worse_data(a: DataQualityTier, b: DataQualityTier) -> DataQualityTier:
    return DATA_TIERS[max(DATA_TIERS.index(a), DATA_TIERS.index(b))]


def allowed_actions(
    research: ResearchQualityTier, data: DataQualityTier, *, can_retry: bool
) -> tuple[Action, ...]:
    """Seed 9.1's routing column: HIGH continues, MEDIUM continues (with or without
    flags), LOW enhances or continues with flags, INSUFFICIENT exits. Two readings: the
    retry is only offered while one is left (``can_retry``), and SPARSE data on the first
    attempt may retry even when INSUFFICIENT (2.1: "obscure companies get a second
    chance"; 12.1: "when initial research returns sparse data"). GARBAGE always exits."""
    if data == "GARBAGE":
        return ("EARLY_EXIT",)
    if research == "HIGH":
        return ("CONTINUE",)
    if research == "MEDIUM":
        return ("CONTINUE", "CONTINUE_WITH_FLAGS")
    if research == "LOW":
        return ("ENHANCE_SEARCH", "CONTINUE_WITH_FLAGS") if can_retry else ("CONTINUE_WITH_FLAGS",)
    if data == "SPARSE" and can_retry:
        return ("ENHANCE_SEARCH", "EARLY_EXIT")
    return ("EARLY_EXIT",)


def default_action(
    research: ResearchQualityTier, data: DataQualityTier, *, can_retry: bool
) -> Action:
    """The heuristic choice among the allowed actions: MEDIUM data continues with flags
    (it has gaps), LOW and SPARSE data retry while they can."""
    allowed = allowed_actions(research, data, can_retry=can_retry)
    if research == "MEDIUM":
        return "CONTINUE_WITH_FLAGS"
    return allowed[0]
