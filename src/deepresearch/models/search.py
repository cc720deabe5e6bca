"""A search result as every provider reports it, after its adapter has mapped the wire format."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class SearchHit(BaseModel):
    """One result of one query at one provider.

    ``content`` carries the full text when the provider already has it (the local corpus,
    Tavily's ``raw_content``); the fetch stage then uses it instead of fetching the URL.
    ``provider`` is the provider of the best-ranked sighting; ``providers`` names all of
    them when a fan-out search fused several lists (``core.fusion``).
    """

    model_config = ConfigDict(frozen=True)

    url: str
    title: str = ""
    snippet: str = ""
    provider: str
    query: str = ""
    rank: int = Field(default=0, ge=0, description="0-based position in the provider's list")
    score: float | None = Field(default=None, description="the provider's own relevance score")
    published: datetime | None = None
    content: str | None = None
    providers: tuple[str, ...] = Field(
        default=(),
        description="every provider that returned this URL when several were searched "
        "(sorted); empty means just ``provider``",
    )
