"""A report's evaluation: citation precision and recall and sub-question coverage, counted
without a model, and a judge's scores on DeepResearch Bench's four RACE dimensions; and the
research process's (seed 004): source diversity, queries per sub-question and retry share
without a model, the judge's search strategy and source diversity scores, and the 60/40
composite of report and process quality."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from deepresearch.models.usage import Usage

Dimension = Literal["comprehensiveness", "insight", "instruction_following", "readability"]
DIMENSIONS: tuple[Dimension, ...] = (
    "comprehensiveness",
    "insight",
    "instruction_following",
    "readability",
)
ProcessDimension = Literal["search_strategy", "source_diversity"]
PROCESS_DIMENSIONS: tuple[ProcessDimension, ...] = ("search_strategy", "source_diversity")


class DimensionScore(BaseModel):
    dimension: Dimension | ProcessDimension
    score: float = Field(ge=0.0, le=10.0, description="0-10")
    reason: str = ""


class EvalResult(BaseModel):
    run_id: str
    #: cited sentences whose citations support them (fully or partly) / cited sentences
    citation_precision: float | None = None
    #: factual sentences with a supporting citation / factual sentences
    citation_recall: float | None = None
    #: sub-questions the report cites evidence for / sub-questions planned
    coverage: float | None = None
    cited_sentences: int = 0
    supported_cited: int = 0
    factual_sentences: int = 0
    factual_supported: int = 0
    sub_questions: int = 0
    covered: list[str] = Field(default_factory=list, description="ids of the covered sub-questions")
    uncovered: list[str] = Field(default_factory=list)
    scores: list[DimensionScore] = Field(default_factory=list, description="the judge's, 0-10")
    overall: float | None = Field(default=None, description="mean of the judge's scores, 0-10")
    judge_model: str | None = None
    judge_note: str = Field(
        default="", description="why there are no judge scores, if there are none"
    )
    # the research process (seed 004), counted without a model (``core.process_quality``)
    sources_read: int = 0
    distinct_domains: int = 0
    #: distinct domains / sources read
    source_diversity: float | None = None
    researched: int = Field(default=0, description="sub-questions researched")
    queries_per_sub_question: float | None = None
    retried: int = Field(default=0, description="sub-questions researched more than once")
    #: sub-questions researched more than once / sub-questions researched
    retry_share: float | None = None
    process_scores: list[DimensionScore] = Field(
        default_factory=list, description="the judge's search strategy and source diversity"
    )
    process_overall: float | None = Field(default=None, description="their mean, 0-10")
    composite: float | None = Field(
        default=None, description="seed 004's 60% report (overall) + 40% process, 0-10"
    )
    usage: Usage = Field(default_factory=Usage, description="the judge's calls and tokens")
    created_at: datetime | None = None
