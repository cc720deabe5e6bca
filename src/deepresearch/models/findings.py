"""The findings check (seed 002's validate_findings): each verified finding's claim read
against its own quote before writing."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

FindingVerdict = Literal["supported", "partial", "unsupported"]


class FindingCheck(BaseModel):
    evidence_id: str
    sub_question_id: str
    claim: str
    quote: str
    source_url: str
    verdict: FindingVerdict
    method: Literal["judge", "deterministic", "quote"]
    note: str = ""
