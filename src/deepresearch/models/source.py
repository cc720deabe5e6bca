"""A source the run read (or tried to read), and the passages cut from its stored text."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field

from deepresearch.models.figures import PageFigure
from deepresearch.models.scores import SourceScores

SourceKind = Literal["html", "pdf", "text", "snippet"]
#: seed 001's content-quality tiers, best first (``core.content_quality`` decides them)
ContentQuality = Literal["HIGH", "MEDIUM", "LOW", "INSUFFICIENT"]
CONTENT_QUALITIES: tuple[ContentQuality, ...] = get_args(ContentQuality)


class Source(BaseModel):
    """A fetched (or snippet-only) source. ``text`` is the stored text every quote is
    verified against; it never changes after the fetch stage wrote it."""

    id: str = Field(description="stable within a run, derived from the URL")
    url: str
    title: str = ""
    domain: str = ""
    text: str = ""
    kind: SourceKind = "html"
    fetched: bool = Field(default=True, description="False when only the search snippet is known")
    published: datetime | None = None
    provider: str = ""
    sub_question_ids: list[str] = Field(default_factory=list)
    rank_score: float = 0.0
    summary: str | None = None
    fetch_error: str | None = None
    scores: SourceScores | None = Field(
        default=None, description="every ranking dimension, the threshold and the decision"
    )
    content_quality: ContentQuality | None = Field(
        default=None,
        description="how much the stored text gives to write from (seed 001's tier; None: "
        "read before tiers were kept)",
    )
    library_run: str | None = Field(
        default=None,
        description="the earlier run of the owner's library its text or quotes came from",
    )
    library_read: datetime | None = Field(
        default=None, description="a page of the library: when the text used was read"
    )
    figures: list[PageFigure] = Field(
        default_factory=list,
        description="the page's captioned figures, as candidates for the report (issue 26)",
    )


class Passage(BaseModel):
    """A span of a source's stored text: ``source.text[start:end] == text``."""

    id: str
    source_id: str
    text: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    score: float = 0.0
