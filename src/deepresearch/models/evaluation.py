"""A report's evaluation: citation precision and recall and sub-question coverage, counted
without a model, and a judge's scores on DeepResearch Bench's four RACE dimensions."""

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


class DimensionScore(BaseModel):
    dimension: Dimension
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
    usage: Usage = Field(default_factory=Usage, description="the judge's calls and tokens")
    created_at: datetime | None = None
