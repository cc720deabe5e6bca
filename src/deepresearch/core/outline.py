"""The report's outline: the sections the writer plans from the findings, each with a
layout (prose, list, table, timeline or comparison) and the evidence it rests on, made
sane before any section is written. Pure.

``sane_outline`` keeps what can be written: sections that name evidence the writer was
given, no heading twice, none of the report's own sections (its findings, sources,
limitations), a layout the evidence can fill (a table, list or comparison needs two
quotes, a timeline two quotes with a date; otherwise prose), at most ``MAX_SECTIONS``.
An outline that plans nothing usable still gets one prose section on the best notes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast, get_args

from pydantic import BaseModel, Field

from deepresearch.core.findings import HEADING as FINDINGS_HEADING
from deepresearch.core.section_check import Cited, label_key
from deepresearch.models import Evidence
from deepresearch.models.report import SectionLayout

MAX_SECTIONS = 6
#: notes one section is written from, at most (what keeps each section call small)
MAX_SECTION_NOTES = 8
DEFAULT_HEADING = "Findings"
#: headings the report writes itself
RESERVED_HEADINGS = frozenset(
    h.lower()
    for h in (FINDINGS_HEADING, "Sources", "Limitations", "Key facts", "Sources considered")
)
_DATE = re.compile(
    r"\b(1[0-9]{3}|20[0-9]{2})\b|\b(January|February|March|April|May|June|July|August"
    r"|September|October|November|December)\b"
)


class PlannedSection(BaseModel):
    """One section of the outline as the writer proposes it."""

    heading: str
    kind: str = Field(default="prose", description="prose, list, table, timeline or comparison")
    evidence: list[str] = Field(default_factory=list, description="labels of its notes")


class OutlineDraft(BaseModel):
    """The writer's outline: the title, a cited summary, and the sections to write."""

    title: str = ""
    summary: list[Cited] = Field(default_factory=list)
    sections: list[PlannedSection] = Field(default_factory=list)


@dataclass(frozen=True)
class SectionPlan:
    """A section to write: its heading, layout and the labels of its notes."""

    heading: str
    layout: SectionLayout
    labels: tuple[str, ...]


def sane_outline(draft: OutlineDraft, labels: Mapping[str, Evidence]) -> list[SectionPlan]:
    """The sections of ``draft`` that can be written from ``labels`` (label -> the
    verified evidence the writer was shown), fixed as the module docstring says."""
    plans: list[SectionPlan] = []
    seen: set[str] = set()
    for part in draft.sections:
        heading = " ".join(part.heading.split()) or DEFAULT_HEADING
        if heading.lower() in seen or heading.lower() in RESERVED_HEADINGS:
            continue
        keys = [key for key in dict.fromkeys(map(label_key, part.evidence)) if key in labels]
        keys = [key for key in keys if labels[key].verified][:MAX_SECTION_NOTES]
        if not keys:
            continue
        seen.add(heading.lower())
        plans.append(SectionPlan(heading, fit_layout(part.kind, keys, labels), tuple(keys)))
        if len(plans) == MAX_SECTIONS:
            break
    if not plans and labels:
        best = [key for key, item in labels.items() if item.verified][:MAX_SECTION_NOTES]
        if best:
            plans.append(SectionPlan(DEFAULT_HEADING, "prose", tuple(best)))
    return plans


def fit_layout(kind: str, keys: list[str], labels: Mapping[str, Evidence]) -> SectionLayout:
    """The layout asked for when its notes can fill it, else prose (unknown kinds too)."""
    wanted = kind.strip().lower()
    if wanted not in get_args(SectionLayout):
        return "prose"
    layout = cast(SectionLayout, wanted)
    if layout != "prose" and len(keys) < 2:
        return "prose"
    if layout == "timeline" and sum(bool(_DATE.search(labels[k].quote)) for k in keys) < 2:
        return "list"
    return layout
