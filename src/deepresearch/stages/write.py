"""Write: the report from verified evidence only, with inline numbered citations and a
sources section. The writer model cites evidence by label; citations it invents are
dropped, and sentences left without a citation are removed and counted. With no model
(or when the writer fails twice, the second time with fewer notes, as seed 004 retries on
token limits) the report is extractive: verified quotes only, labelled as such."""

from __future__ import annotations

from datetime import UTC, datetime

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.assemble import (
    best_evidence,
    extractive_sections,
    limitations,
    number_sources,
)
from deepresearch.core.text import clip
from deepresearch.core.untrusted import DATA_RULE, data_block
from deepresearch.models import Evidence, Paragraph, Report, Section, Sentence
from deepresearch.state import RunState

STAGE = "write"
MAX_NOTES = 60
RETRY_NOTES = 25
EXTRACTIVE_NOTICE = (
    "Extractive report: no model wrote this text. Every sentence below is a verified quote "
    "from the source it cites."
)

SYSTEM = f"""You write a research report from verified evidence. {DATA_RULE}
Rules: use only facts stated in the evidence; every sentence must cite the evidence it rests
on by label, e.g. ["E3", "E7"]; never cite a label for something it does not say; where the
evidence disagrees, say so. Write a title, a 2-4 sentence summary, and sections with headings
and paragraphs. Prefer specific facts (names, numbers, dates) over generalities."""


class DraftSentence(BaseModel):
    text: str
    cite: list[str] = Field(default_factory=list)


class DraftSection(BaseModel):
    heading: str
    paragraphs: list[list[DraftSentence]]


class Draft(BaseModel):
    title: str
    summary: list[DraftSentence] = Field(default_factory=list)
    sections: list[DraftSection] = Field(default_factory=list)


async def write(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    ctx.bus.emit("stage_started", stage=STAGE, message="Writing the report")
    evidence = [item for item in state.get("evidence", []) if item.verified]
    sources = state.get("sources", {})
    by_id = {item.id: item for item in evidence}

    draft = None
    notes: list[Evidence] = []
    if ctx.gateway.has_model("writer"):
        for limit in (MAX_NOTES, RETRY_NOTES):
            notes = best_evidence(evidence, limit)
            draft = await ctx.gateway.structured(
                "writer", Draft, system=SYSTEM, user=_notes(state, notes), stage=STAGE
            )
            if draft is not None:
                break

    dropped = 0
    if draft is not None:
        labels = {f"E{i}": item.id for i, item in enumerate(notes, start=1)}
        summary, dropped_summary = _cited(draft.summary, labels)
        sections = []
        dropped = dropped_summary
        for part in draft.sections:
            paragraphs = []
            for raw in part.paragraphs:
                sentences, lost = _cited(raw, labels)
                dropped += lost
                if sentences:
                    paragraphs.append(Paragraph(sentences=sentences))
            if paragraphs:
                sections.append(
                    Section(heading=part.heading.strip() or "Findings", paragraphs=paragraphs)
                )
        kind, title, notice = "synthesized", draft.title.strip() or state["question"], None
        if not sections and not summary:
            draft = None
    if draft is None:
        summary, sections = extractive_sections(state["sub_questions"], evidence)
        kind, title, notice = "extractive", state["question"], EXTRACTIVE_NOTICE

    all_sentences = [
        *summary,
        *(s for sec in sections for p in sec.paragraphs for s in p.sentences),
    ]
    refs = number_sources(all_sentences, by_id, sources)
    cited = {cid for sentence in all_sentences for cid in sentence.citations}
    report = Report(
        run_id=state["run_id"],
        question=state["question"],
        title=title,
        kind=kind,
        summary=summary,
        sections=sections,
        sources=refs,
        evidence=[item for item in evidence if item.id in cited],
        limitations=limitations(
            gate=state.get("gate"),
            sub_questions=state["sub_questions"],
            sources=sources,
            dropped_sentences=dropped,
            model_errors=ctx.gateway.errors,
        ),
        notice=notice,
        usage=ctx.usage_snapshot(),
        created_at=datetime.now(UTC),
    )
    ctx.bus.emit(
        "report_ready",
        stage=STAGE,
        message=f"{kind.capitalize()} report: {len(refs)} sources, {len(cited)} verified quotes",
        kind=kind,
        sources=len(refs),
        evidence=len(cited),
        dropped_sentences=dropped,
    )
    ctx.bus.emit("stage_completed", stage=STAGE)
    return {"report": report, "usage": report.usage}


def _cited(sentences: list[DraftSentence], labels: dict[str, str]) -> tuple[list[Sentence], int]:
    out, dropped = [], 0
    for sentence in sentences:
        text = " ".join(sentence.text.split())
        ids = []
        for label in sentence.cite:
            key = label.strip().strip("[]").upper()
            if key in labels and labels[key] not in ids:
                ids.append(labels[key])
        if text and ids:
            out.append(Sentence(text=text, citations=ids))
        elif text:
            dropped += 1
    return out, dropped


def _notes(state: RunState, notes: list[Evidence]) -> str:
    questions = {sq.id: sq.text for sq in state["sub_questions"]}
    blocks = []
    for i, item in enumerate(notes, start=1):
        body = f"Claim: {clip(item.claim, 400)}\nQuote: {item.quote}"
        blocks.append(
            data_block(
                "source",
                body,
                label=f"E{i}",
                about=clip(questions.get(item.sub_question_id, ""), 120),
            )
        )
    return (
        f"Question: {state['question']}\nBrief: {state['plan'].brief}\n\nEvidence:\n"
        + "\n".join(blocks)
    )
