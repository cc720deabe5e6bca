"""Evidence: a claim backed by a verbatim quote from a source, with where it sits."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Verification(BaseModel):
    """The result of checking a quote against its source's stored text."""

    status: Literal["PASS", "FAIL"]
    method: Literal["exact", "normalized", "fuzzy", "context", "none"]
    score: float = Field(ge=0.0, le=1.0)
    start: int | None = None
    end: int | None = None


class Evidence(BaseModel):
    id: str
    sub_question_id: str
    claim: str
    quote: str
    source_id: str
    source_url: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    passage_id: str | None = None
    score: float = 0.0
    verification: Verification | None = None

    @property
    def verified(self) -> bool:
        return self.verification is not None and self.verification.status == "PASS"
