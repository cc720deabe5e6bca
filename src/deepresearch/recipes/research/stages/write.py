"""Write: the report from verified evidence only, with inline numbered citations and a
sources section. With a writer model the report is planned (``stages.sections``): an
outline of sections, each prose, a list or a table, written in parallel and validated,
repaired once or replaced by its verified quotes. The outline's summary cites evidence by
label; citations it invents are dropped and counted; whether a sentence left without a
citation may stay is the audit's decision. With no model (or when the outline fails twice,
the second time with fewer notes, as seed 004 retries on token limits) the report is
extractive: verified quotes only, labelled as such. After a report review's feedback
(``review_report``) the writer writes once more with the feedback beside the brief."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.answers import anchors, own_pages
from deepresearch.core.assemble import (
    Written,
    assemble_report,
    best_evidence,
    extractive_sections,
    within_words,
)
from deepresearch.core.certainty import evidence_notes
from deepresearch.core.findings import MAX_FINDINGS, quote_text
from deepresearch.core.model_claims import claim_ledger
from deepresearch.core.passages import rank_evidence
from deepresearch.core.questions import analyze_question
from deepresearch.core.section_check import Cited
from deepresearch.core.table_rows import row_context
from deepresearch.core.text import clip
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.models import Evidence, Section, Sentence
from deepresearch.models.event_payloads import ReportReady, StageCompleted, StageStarted
from deepresearch.models.report import ReportKind
from deepresearch.recipes.research.stages.sections import Planned, SectionStats, planned_report
from deepresearch.recipes.research.state import RunState

STAGE = "write"
#: the notes of the second outline attempt at most (``limits.writer_max_notes`` when fewer)
RETRY_NOTES = 25
EXTRACTIVE_NOTICE = (
    "Extractive report: no model wrote this text. Every sentence below is a verified quote "
    "from the source it cites."
)

SYSTEM = f"""You write a research report from verified evidence. {DATA_RULE}
First plan it: a title, a 2-4 sentence summary in which every sentence cites the evidence
it rests on by label, e.g. ["E3", "E7"], and the report's sections (at most six). Each
section has a heading, a kind and the labels of the notes it will be written from. Kinds:
"prose" (an explanation), "list" (parallel points), "table" (facts about several things,
e.g. names with figures), "timeline" (dated events) or "comparison" (two or more things
side by side). Pick the kind that suits the notes: a table or timeline when the notes hold
figures or dates, a comparison when the question compares things. Never cite a label for
something it does not say; where notes disagree ("Disagrees with"), say so; say how sure
each point is from its "Support". Prefer specific facts (names, numbers, dates), and
where notes say the same, the one whose "Page content" is richer (HIGH, MEDIUM, LOW)."""


#: how a person's feedback on the first draft reaches the writer (the rewrite, issue 28)
FEEDBACK = (
    "The reader's feedback on your first draft (follow it where the evidence allows; "
    "cite only what the evidence says)"
)

FINDINGS_CANDIDATES = 12
FINDINGS_SYSTEM = f"""You select the verified findings of a research report. {DATA_RULE}
Pick the 3 to 5 quotes that best answer the question. For each, give its label and copy the
quote EXACTLY as written, character for character: do not shorten, fix or rephrase it."""


DraftSentence = Cited  # a summary sentence and the labels it cites


class FindingChoice(BaseModel):
    label: str
    quote: str


class Selection(BaseModel):
    findings: list[FindingChoice] = Field(default_factory=list)


async def write(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    ctx.bus.emit(StageStarted(), stage=STAGE, message="Writing the report")
    evidence = [item for item in state.get("evidence", []) if item.verified]
    sources = state.get("sources", {})

    draft, picks = await _draft_and_findings(ctx, state, evidence)

    invented = 0
    kind: ReportKind
    summary: list[Sentence] = []
    sections: list[Section] = []
    stats = SectionStats()
    if draft is not None:
        summary, invented = _cited(draft.summary, draft.labels)
        sections, stats = draft.sections, draft.stats
        kind, title, notice = "synthesized", draft.title or state["question"], None
        if not sections and not summary:
            draft = None
    if draft is None:
        sections = extractive_sections(
            state["sub_questions"],
            evidence,
            exclude={eid for eid, _ in picks},
            order=reading_order(state, evidence),
        )
        kind, title, notice = "extractive", state["question"], EXTRACTIVE_NOTICE
    done = assemble_report(
        Written(kind, title, notice, summary, sections, picks),
        run_id=state["run_id"],
        question=state["question"],
        evidence=evidence,
        sources=sources,
        considered=state.get("considered", {}).values(),
        gate=state.get("gate"),
        sub_questions=state["sub_questions"],
        model_errors=ctx.gateway.errors,
        search_errors=ctx.ledger.search_errors,
        open_leads=state.get("open_leads", []),
        created_at=ctx.clock(),
        extracted=state.get("extracted_claims"),
        sources_per_claim=ctx.limits.sources_per_claim,
    )
    report = done.report
    refs, cited = report.sources, report.cited_evidence_ids()
    ctx.bus.emit(
        ReportReady(
            kind=kind,
            sources=len(refs),
            evidence=len(cited),
            invented_citations=invented,
            sections_planned=stats.planned if draft is not None else None,
            sections_first_pass=stats.first_pass if draft is not None else None,
            sections_repaired=stats.repaired if draft is not None else None,
            sections_fallback=stats.fallback if draft is not None else None,
        ),
        stage=STAGE,
        message=f"{kind.capitalize()} report: {len(refs)} sources, {len(cited)} verified quotes",
    )
    ctx.bus.emit(StageCompleted(), stage=STAGE)
    return {
        "report": report,
        "findings_restored": done.findings_restored,
        "findings_dropped": done.findings_dropped,
        "invented_citations": invented,
    }


async def _draft_and_findings(
    ctx: RunContext, state: RunState, evidence: list[Evidence]
) -> tuple[Planned | None, list[tuple[str, str]]]:
    """The planned report and the writer's choice of Verified Findings, asked for in
    parallel (the second call does not lengthen the run). Without a writer: no draft, and
    the findings are the best-scored quotes."""
    order = reading_order(state, evidence)
    candidates = best_evidence(evidence, FINDINGS_CANDIDATES, order=order)
    if not ctx.gateway.has_model("writer"):
        return None, [(item.id, quote_text(item)) for item in candidates[:MAX_FINDINGS]]
    labels = {f"E{i}": item for i, item in enumerate(candidates, start=1)}
    cap, words = ctx.limits.writer_max_notes, ctx.limits.writer_word_budget
    attempts = [
        within_words(best_evidence(evidence, limit, order=order), words)
        for limit in (cap, min(RETRY_NOTES, cap))
    ]

    per_claim = ctx.limits.sources_per_claim

    def render(notes: list[Evidence], marks: Mapping[str, str]) -> str:
        return _notes(state, notes, per_claim, marks)

    selection, draft = await asyncio.gather(
        ctx.gateway.structured(
            "writer",
            Selection,
            system=FINDINGS_SYSTEM,
            user=_notes(state, candidates, per_claim),
            stage=STAGE,
        ),
        planned_report(ctx, state, attempts, render, SYSTEM),
    )
    if selection is None:
        picks = [(item.id, quote_text(item)) for item in candidates[:MAX_FINDINGS]]
    else:
        picks = [
            (labels[key].id, choice.quote.strip())
            for choice in selection.findings[:MAX_FINDINGS]
            if (key := choice.label.strip().strip("[]").upper()) in labels
        ]
    return draft, picks


def reading_order(state: RunState, evidence: list[Evidence]) -> list[str]:
    """Evidence ids in the order a reader needs them (``core.passages.rank_evidence``):
    a quote for each compared thing, each lead followed and each thing the question names
    whose own page was read, then the answer-bearing ones."""
    profile = analyze_question(state["question"])
    sources = state.get("sources", {})
    titles = {sid: source.title for sid, source in sources.items()}
    read = [source.title for source in sources.values() if source.fetched]
    must_cover = [*profile.options, *state.get("leads", []), *own_pages(anchors(profile), read)]
    return [item.id for item in rank_evidence(profile, evidence, titles, must_cover)]


def _cited(sentences: list[DraftSentence], labels: dict[str, str]) -> tuple[list[Sentence], int]:
    """The writer's sentences with their citations mapped to evidence ids. Citations to
    labels that do not exist are dropped and counted (invented citations); a sentence left
    with none stays, and the audit decides whether it states a fact without a source."""
    out, invented = [], 0
    for sentence in sentences:
        text = " ".join(sentence.text.split())
        if not text:
            continue
        ids = []
        for label in sentence.cite:
            key = label.strip().strip("[]").upper()
            if not key:
                continue
            if key not in labels:
                invented += 1
            elif labels[key] not in ids:
                ids.append(labels[key])
        out.append(Sentence(text=text, citations=ids))
    return out, invented


def _notes(
    state: RunState,
    notes: list[Evidence],
    per_claim: int,
    marks: Mapping[str, str] | None = None,
) -> str:
    """The writer's evidence, each note labelled (``marks``: evidence id -> label, else
    E1, E2, ... in order), with how well its claim is supported and which notes disagree
    with it (``core.certainty``; the judge's claims when it extracted them,
    ``core.model_claims``), so the prose can say how sure it is and where sources
    disagree."""
    questions = {sq.id: sq.text for sq in state["sub_questions"]}
    labels = dict(marks) if marks else {item.id: f"E{i}" for i, item in enumerate(notes, start=1)}
    sources = state.get("sources", {})
    scores = {sid: source.rank_score for sid, source in sources.items()}
    ledger = claim_ledger(notes, scores, state.get("extracted_claims"), max_sources=per_claim)
    certainty = evidence_notes(ledger, labels)
    blocks = []
    for item in notes:
        body = f"Claim: {clip(item.claim, 400)}\n"
        if item.id in certainty:
            words, against = certainty[item.id]
            body += f"Support: {words}\n"
            if against:
                body += f"Disagrees with: {', '.join(against)}\n"
        page = sources.get(item.source_id)
        if page is not None and page.content_quality is not None:
            body += f"Page content: {page.content_quality}\n"  # seed 001's tier
        # a table row's quote comes under its page's title and table's header
        context = row_context(page, item) if page is not None else None
        quote = f"{context}\n{item.quote}" if context else item.quote
        body += f"Quote: {quote}"  # last: a quote may run over several lines
        blocks.append(
            data_block(
                "source",
                body,
                label=labels[item.id],
                about=clip(questions.get(item.sub_question_id, ""), 120),
            )
        )
    plan = state["plan"]
    # seed 004: the plan's scope and output format shape the report (a plan from an older
    # checkpoint has neither)
    shape = "".join(
        f"\n{name}: {text}"
        for name, text in (("Scope", plan.scope), ("Output format", plan.output_format))
        if text
    )
    feedback = state.get("report_review", {}).get("feedback")
    if feedback:  # a person's feedback on the reviewed report: the one rewrite follows it
        shape += f"\n{FEEDBACK}: {feedback}"
    return f"Question: {state['question']}\nBrief: {plan.brief}{shape}\n\nEvidence:\n" + "\n".join(
        blocks
    )
