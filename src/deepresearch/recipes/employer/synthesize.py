"""Phase 2's synthesis: the employer profile from the formatted search results.

With a researcher model, the model drafts the profile and cites passage ids for every
item; :func:`ground_draft` then keeps only what verified passages support (a technology
must be named in one, a sentence must pass the deterministic support check) and lists
the rest as ``unsupported``, a hallucination signal for the reranker. Without a model, or
when it fails or answers garbage, :func:`deepresearch.recipes.employer.extract.extract_profile`
builds the profile from the quotes alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field

from deepresearch.core.lexical import overlap
from deepresearch.core.support import check_support
from deepresearch.injection.untrusted import DATA_RULE
from deepresearch.llm.gateway import Gateway
from deepresearch.models import Evidence
from deepresearch.recipes.employer.extract import (
    MAX_CULTURE,
    MAX_EVIDENCE_PER_ITEM,
    MAX_REQUIREMENTS,
    MAX_TECH,
    extract_profile,
    mentions_technology,
)
from deepresearch.recipes.employer.lists import EmployerLists, normalize_item
from deepresearch.recipes.employer.models import Classification, Phase2Output, ProfileItem

STAGE = "synthesize"
SYNTHESIS_TIMEOUT_S = 60.0

SYSTEM = f"""You build an employer profile for a job seeker from web search results.
{DATA_RULE}
Use only what the passages state, and cite for every item the ids of the passages that
state it (such as "E3" or "J2"). Leave a list empty rather than guess.
- employer_summary: 2 to 6 sentences, 50 to 200 words in all, about the employer: what
  it does, its products, its engineering. Each sentence with its passage ids.
- identified_requirements: explicit requirements of the role or the employer (skills,
  experience, qualifications), each as the passage states it.
- tech_stack: names of concrete technologies (languages, frameworks, databases, platforms,
  tools) the employer uses or asks for; one name per item, no generic words.
- culture_signals: specific statements about how the employer works or what it values; no
  platitudes such as "great benefits" or "dynamic team".
- reasoning_trace: one or two sentences on how you built the profile."""


class DraftItem(BaseModel):
    text: str
    evidence: list[str] = Field(default_factory=list, description="passage ids, e.g. E1")


class SynthesisDraft(BaseModel):
    """What the researcher model is asked for. A summary is required, so an empty
    object is an invalid answer (and gets the corrective retry, then the fallback)."""

    employer_summary: list[DraftItem] = Field(min_length=1)
    identified_requirements: list[DraftItem] = Field(default_factory=list)
    tech_stack: list[DraftItem] = Field(default_factory=list)
    culture_signals: list[DraftItem] = Field(default_factory=list)
    reasoning_trace: str = ""


async def synthesize(
    gateway: Gateway,
    classification: Classification,
    formatted: str,
    evidence: Sequence[Evidence],
    lists: EmployerLists,
    company: re.Pattern[str] | None,
    *,
    input_ids: Sequence[str] = (),
    listed_requirements: Sequence[str] = (),
) -> Phase2Output:
    """The profile, model-drafted and grounded, or extracted without a model."""
    if not evidence:
        return Phase2Output(
            synthesized_by="rules",
            reasoning_trace="No verified passage was found, so nothing could be synthesized.",
        )
    if gateway.has_model("researcher"):
        user = (
            f"Query type: {classification.query_type}\n"
            f"Company: {classification.company_name or '(unknown)'}\n"
            f"Job title: {classification.job_title or '(unknown)'}\n"
            f"Skills: {', '.join(classification.extracted_skills) or '(none)'}\n\n"
            f"{formatted}"
        )
        draft = await gateway.structured(
            "researcher",
            SynthesisDraft,
            system=SYSTEM,
            user=user,
            stage=STAGE,
            timeout_s=SYNTHESIS_TIMEOUT_S,
        )
        if draft is not None:
            grounded = ground_draft(draft, evidence, lists)
            if grounded.employer_summary or grounded.tech_stack or grounded.identified_requirements:
                return grounded
    profile = extract_profile(
        evidence, lists, company, input_ids=input_ids, listed_requirements=listed_requirements
    )
    if gateway.has_model("researcher"):
        note = "The model's draft was unusable, so the profile was extracted without it. "
        profile = profile.model_copy(
            update={"synthesized_by": "fallback", "reasoning_trace": note + profile.reasoning_trace}
        )
    return profile


def ground_draft(
    draft: SynthesisDraft, evidence: Sequence[Evidence], lists: EmployerLists
) -> Phase2Output:
    """The draft's items that verified passages support, each with the ids of those
    passages; the others, as ``category: text``, in ``unsupported``."""
    unsupported: list[str] = []
    tech: list[ProfileItem] = []
    for item in draft.tech_stack:
        grounded = _ground_tech(item, evidence)
        _add(tech, grounded, item, "tech_stack", unsupported)
    requirements: list[ProfileItem] = []
    for item in draft.identified_requirements:
        _add(requirements, _ground_text(item, evidence), item, "requirement", unsupported)
    culture: list[ProfileItem] = []
    for item in draft.culture_signals:
        _add(culture, _ground_text(item, evidence), item, "culture_signal", unsupported)
    sentences: list[ProfileItem] = []
    for item in draft.employer_summary:
        _add(sentences, _ground_text(item, evidence), item, "summary", unsupported)
    summary_ids = list(dict.fromkeys(i for s in sentences for i in s.evidence))
    return Phase2Output(
        employer_summary=" ".join(s.text for s in sentences),
        summary_evidence=summary_ids,
        identified_requirements=requirements[:MAX_REQUIREMENTS],
        tech_stack=tech[:MAX_TECH],
        culture_signals=culture[: MAX_CULTURE * 2],
        reasoning_trace=draft.reasoning_trace.strip(),
        synthesized_by="model",
        unsupported=unsupported,
    )


def _add(
    bucket: list[ProfileItem],
    grounded: ProfileItem | None,
    item: DraftItem,
    category: str,
    unsupported: list[str],
) -> None:
    text = " ".join(item.text.split())
    if not text:
        return
    if grounded is None:
        unsupported.append(f"{category}: {text}")
        return
    if normalize_item(text) not in {normalize_item(b.text) for b in bucket}:
        bucket.append(grounded)


def _cited(item: DraftItem, evidence: Sequence[Evidence]) -> list[Evidence]:
    wanted = [label.strip().strip("[]") for label in item.evidence]
    by_id = {e.id: e for e in evidence}
    return [by_id[label] for label in dict.fromkeys(wanted) if label in by_id]


def _ground_tech(item: DraftItem, evidence: Sequence[Evidence]) -> ProfileItem | None:
    """A technology is kept when a cited passage names it, or failing that any passage
    (models cite the wrong id more often than they invent a name): its evidence is the
    passages that name it."""
    name = " ".join(item.text.split())
    cited = [e for e in _cited(item, evidence) if mentions_technology(name, e.quote)]
    found = cited or [e for e in evidence if mentions_technology(name, e.quote)]
    if not found:
        return None
    return ProfileItem(text=name, evidence=[e.id for e in found[:MAX_EVIDENCE_PER_ITEM]])


def _ground_text(item: DraftItem, evidence: Sequence[Evidence]) -> ProfileItem | None:
    """A sentence is kept when the passages it cites support it (the deterministic
    support check), or failing that the passage closest to it in words does."""
    text = " ".join(item.text.split())
    cited = _cited(item, evidence)
    if cited and supports(text, [e.quote for e in cited]):
        return ProfileItem(text=text, evidence=[e.id for e in cited])
    closest = max(evidence, key=lambda e: overlap(text, e.quote), default=None)
    if closest is not None and supports(text, [closest.quote]):
        return ProfileItem(text=text, evidence=[closest.id])
    return None


def supports(text: str, quotes: Sequence[str]) -> bool:
    """The support check's "supported", or its "partial" when every figure, date and
    name of ``text`` is in the quotes (a paraphrase, not an addition)."""
    verdict = check_support(text, quotes)
    if verdict.verdict == "supported":
        return True
    if verdict.verdict == "unsupported":
        return False
    parts = verdict.components
    return all(share in (None, 1.0) for share in (parts.numbers, parts.dates, parts.entities))
