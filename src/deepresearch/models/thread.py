"""Threads of research: a finished run takes follow-up questions, each a run of its own
(a turn) linked to the thread's first run (its root) and to the turn it follows."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from deepresearch.models.evidence import Evidence
from deepresearch.models.plan import SubQuestion
from deepresearch.models.source import Source


class Turn(BaseModel):
    """One run of a thread, as the thread lists it."""

    run_id: str
    turn: int = Field(ge=1, description="1 for the thread's first run")
    question: str
    follows: str | None = Field(default=None, description="the run this turn follows up")
    topic_shift: bool = False


class FollowupInfo(BaseModel):
    """What a report that answers a follow-up says about its thread."""

    root: str = Field(description="the thread's first run")
    follows: str = Field(description="the run this turn follows up")
    turn: int = Field(ge=2)
    topic_shift: bool = Field(
        description="the follow-up is on another topic: researched afresh, nothing reused"
    )
    method: Literal["model", "lexical"] = "lexical"
    reused_sources: int = 0
    reused_evidence: int = 0


class Thread(BaseModel):
    """A follow-up turn's view of its thread, in its state: who it follows, the earlier
    questions and findings the plan sees, the topic decision, and what is carried over
    (pages read and verified evidence; empty after a topic shift)."""

    info: FollowupInfo
    questions: list[str] = Field(description="the earlier turns' questions, oldest first")
    findings: list[str] = Field(default_factory=list, description="earlier verified claims")
    reason: str = ""
    overlap: float = 0.0
    sources: dict[str, Source] = Field(default_factory=dict)
    evidence: list[Evidence] = Field(default_factory=list)
    sub_questions: list[SubQuestion] = Field(default_factory=list)


class ParentTurn(BaseModel):
    """What a follow-up reads of the finished run it follows (``threads.read_parent``):
    its question, its place in the thread, the evidence its report cites, and the pages,
    evidence and sub-questions the follow-up may carry over. A run's recording keeps it,
    so a follow-up replays without the run it follows (``replay.ports``)."""

    run_id: str
    question: str
    thread: Thread | None = Field(
        default=None,
        description="its own place in the thread (None: the first run), without what it "
        "carried over (that is in sources, evidence and sub_questions)",
    )
    cited: list[str] = Field(default_factory=list, description="evidence ids its report cites")
    sources: dict[str, Source] = Field(default_factory=dict)
    evidence: list[Evidence] = Field(default_factory=list)
    sub_questions: list[SubQuestion] = Field(default_factory=list)

    @property
    def root(self) -> str:
        return self.thread.info.root if self.thread is not None else self.run_id

    @property
    def turn(self) -> int:
        return self.thread.info.turn if self.thread is not None else 1
