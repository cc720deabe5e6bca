"""Industry inference (seed 000, section 10), pure: a guess from context words when
too few technologies were found, whose technologies are offered as labelled assumptions."""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepresearch.recipes.employer.lists import EmployerLists, normalize_item
from deepresearch.recipes.employer.models import IndustryInference, ProfileItem

#: seed 000, 10.1: inference runs when fewer technologies than this were found
SPARSE_TECH_STACK = 2
INFERRED_TECHNOLOGIES = 5


def infer_industry_from_context(
    company_name: str | None, employer_summary: str, job_title: str | None, lists: EmployerLists
) -> IndustryInference | None:
    """Seed 10.3: score each industry by how many of its signals occur in the company
    name, summary and job title; the best (first in table order on a tie) and its top five
    technologies. Signals match whole words ("ai" is not found in "maintain"), where the
    seed matched substrings."""
    context = f"{company_name or ''} {employer_summary} {job_title or ''}".lower()
    best: IndustryInference | None = None
    for industry in lists.industries:
        matched = [
            signal
            for signal in industry.signals
            if re.search(rf"(?<!\w){re.escape(signal)}(?!\w)", context)
        ]
        if matched and (best is None or len(matched) > best.score):
            best = IndustryInference(
                industry=industry.name,
                score=len(matched),
                matched_signals=matched,
                technologies=list(industry.technologies[:INFERRED_TECHNOLOGIES]),
            )
    return best


def inferred_items(inference: IndustryInference, found: Sequence[ProfileItem]) -> list[ProfileItem]:
    """The industry's technologies not already found, each marked inferred with its basis."""
    have = {normalize_item(item.text) for item in found}
    basis = (
        f"typical of the {inference.industry} industry (signals: "
        f"{', '.join(inference.matched_signals)}); not found in any source"
    )
    return [
        ProfileItem(text=name, inferred=True, basis=basis)
        for name in inference.technologies
        if normalize_item(name) not in have
    ]
