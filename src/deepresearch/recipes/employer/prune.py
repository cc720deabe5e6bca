"""Pruning (seed 000, 11.1), pure: generic tech terms, short generic requirements and
platitude culture signals are removed, and what was removed is kept for the output."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepresearch.core.text import content_words, words
from deepresearch.recipes.employer.lists import EmployerLists, normalize_item
from deepresearch.recipes.employer.models import Phase2Output, ProfileItem, PrunedData

#: a generic requirement is pruned when shorter than this many words
SHORT_REQUIREMENT_WORDS = 10
#: a platitude plus at most this many other content words is still a platitude
PLATITUDE_EXTRA_WORDS = 2


@dataclass(frozen=True)
class Pruned:
    """What pruning kept and what it removed."""

    retained_tech: list[ProfileItem]
    retained_requirements: list[ProfileItem]
    retained_culture: list[ProfileItem]
    pruned: PrunedData


def is_generic_tech(term: str, lists: EmployerLists) -> bool:
    """Seed 11.1: the whole term is one of the generic tech terms."""
    return normalize_item(term) in lists.generic_tech_terms


def generic_requirement(text: str, lists: EmployerLists) -> str | None:
    """Seed 11.1: the generic pattern a short (< 10 words) requirement matches, if any.
    A longer requirement that contains one still says something specific and stays."""
    if len(words(text)) >= SHORT_REQUIREMENT_WORDS:
        return None
    for pattern in lists.generic_requirement_patterns:
        if pattern.search(text):
            return pattern.pattern
    return None


def is_platitude(text: str, lists: EmployerLists) -> bool:
    """Seed 11.1: the signal is a platitude, or a platitude with at most two other content
    words ("we offer great benefits", "a dynamic team"); a sentence that says something
    besides ("privacy is a fundamental human right, and we make an impact") stays."""
    item = normalize_item(text)
    for phrase in lists.platitude_culture_signals:
        if item == phrase:
            return True
        if re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", item):
            rest = item.replace(phrase, " ")
            if len(content_words(rest)) <= PLATITUDE_EXTRA_WORDS:
                return True
    return False


def prune_low_quality_data(phase2: Phase2Output, lists: EmployerLists) -> Pruned:
    """Remove generic tech terms, short generic requirements and platitudes."""
    pruned = PrunedData(unsupported=list(phase2.unsupported))
    tech = []
    for item in phase2.tech_stack:
        if is_generic_tech(item.text, lists):
            pruned.tech_stack.append(item.text)
        else:
            tech.append(item)
    requirements = []
    for item in phase2.identified_requirements:
        if generic_requirement(item.text, lists) is not None:
            pruned.identified_requirements.append(item.text)
        else:
            requirements.append(item)
    culture = []
    for item in phase2.culture_signals:
        if is_platitude(item.text, lists):
            pruned.culture_signals.append(item.text)
        else:
            culture.append(item)
    return Pruned(tech, requirements, culture, pruned)
