"""Figures from the sources (issue 26): a figure seen on a page it read (``PageFigure``,
kept with the ``Source``), and one the report shows (``ReportFigure``: where it came from,
the section it is placed in, and its image as re-encoded). Pure data."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: what a figure's image is stored as once re-encoded (every format can draw both)
FigureMime = Literal["image/png", "image/jpeg"]


class PageFigure(BaseModel):
    """A captioned figure as it appears on a page: its image's address, the page it is
    on, its alt text and caption (the page's own words), and the text around it (the
    nearest heading and paragraph) that says what it is about."""

    model_config = ConfigDict(frozen=True)

    image_url: str
    page_url: str
    caption: str
    alt: str = ""
    context: str = ""


class ReportFigure(BaseModel):
    """A figure placed in the report: the page's figure, the source it is cited as, the
    section it illustrates (an index into ``Report.sections``), how well it matched, and
    its image re-encoded (metadata stripped, pixels capped) as base64 ``data``."""

    model_config = ConfigDict(frozen=True)

    section: int = Field(ge=0, description="the index of the section it illustrates")
    source_id: str
    image_url: str
    page_url: str
    caption: str
    alt: str = ""
    score: float = Field(default=0.0, description="how well caption and context match")
    mime: FigureMime
    width: int = Field(ge=1)
    height: int = Field(ge=1)
    bytes: int = Field(ge=1, description="the re-encoded image's size")
    sha256: str = Field(description="of the re-encoded image")
    data: str = Field(repr=False, description="the re-encoded image, base64")
