"""Answer without research (``--search none`` with a model, seed 004's no-search mode):
the writer answers from its own knowledge, and the report says so in every format
(``NOT_RESEARCHED`` is its notice; its kind is ``unresearched``). Nothing is cited, so
there is nothing to audit. Without a writer's answer the run ends in the abort report,
as a run that found nothing does."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.models import Paragraph, Report, Section, Sentence
from deepresearch.models.event_payloads import (
    NoAnswerWarning,
    ReportReady,
    StageCompleted,
    StageStarted,
)
from deepresearch.recipes.research.state import RunState

STAGE = "answer"
NOT_RESEARCHED = "not researched: no sources were searched"
NOTICE = (
    f"This answer was {NOT_RESEARCHED}. It is the model's own knowledge, unchecked against "
    "any source, and may be out of date or wrong."
)
LIMITATION = (
    "No search was run (--search none): no statement here was checked against a source, "
    "and the model's knowledge stops at its training date."
)

SYSTEM = """You answer a question from your own knowledge: no sources were searched for it.
Write a title, a 2-4 sentence summary that answers the question directly, and sections with
headings and paragraphs that cover the research brief. Say plainly where you are unsure or
where your knowledge may be out of date. Never cite a source, name a URL or claim you looked
anything up."""


class KnowledgeSection(BaseModel):
    heading: str
    paragraphs: list[str] = Field(default_factory=list)


class KnowledgeAnswer(BaseModel):
    title: str
    summary: list[str] = Field(default_factory=list)
    sections: list[KnowledgeSection] = Field(default_factory=list)


async def answer(
    state: RunState, runtime: Runtime[RunContext]
) -> Command[Literal["audit", "abort"]]:
    ctx = runtime.context
    ctx.bus.emit(
        StageStarted(), stage=STAGE, message="Answering from the model's knowledge (no search)"
    )
    plan = state["plan"]
    points = "\n".join(f"- {sq.text}" for sq in state.get("sub_questions", []))
    draft = await ctx.gateway.structured(
        "writer",
        KnowledgeAnswer,
        system=SYSTEM,
        user=f"Question: {state['question']}\nBrief: {plan.brief}\n\nCover:\n{points}",
        stage=STAGE,
    )
    summary = [Sentence(text=text) for text in _texts(draft.summary if draft else [])]
    sections = []
    for part in draft.sections if draft is not None else []:
        paragraphs = [Paragraph(sentences=[Sentence(text=t)]) for t in _texts(part.paragraphs)]
        if paragraphs:
            sections.append(
                Section(heading=part.heading.strip() or "Answer", paragraphs=paragraphs)
            )
    if draft is None or not (summary or sections):
        ctx.bus.emit(
            NoAnswerWarning(code="no_answer"),
            stage=STAGE,
            message="The model gave no answer; nothing was searched",
        )
        ctx.bus.emit(StageCompleted(), stage=STAGE)
        return Command(
            goto="abort",
            update={"warnings": [*state.get("warnings", []), "no search, and no answer"]},
        )
    report = Report(
        run_id=state["run_id"],
        question=state["question"],
        title=draft.title.strip() or state["question"],
        kind="unresearched",
        summary=summary,
        sections=sections,
        limitations=[LIMITATION, *ctx.gateway.errors],
        notice=NOTICE,
        created_at=ctx.clock(),
    )
    ctx.bus.emit(
        ReportReady(kind="unresearched", sources=0, evidence=0),
        stage=STAGE,
        message=f"Unresearched answer: {NOT_RESEARCHED}",
    )
    ctx.bus.emit(StageCompleted(), stage=STAGE)
    return Command(goto="audit", update={"report": report, "usage": report.usage})


def _texts(items: list[str]) -> list[str]:
    return [text for text in (" ".join(item.split()) for item in items) if text]
