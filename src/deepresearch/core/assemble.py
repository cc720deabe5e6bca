"""Turning evidence into report parts, and the parts into the report. Pure: the writer
stage calls these.

- ``number_sources``: the cited sources, numbered in order of first citation;
- ``extractive_sections``: the no-model report, made only of verified quotes;
- ``limitations``: what the run could not do, said plainly;
- ``assemble_report``: the report from what was written (a synthesized or an extractive
  text, and the Verified Findings picked): the findings first and kept exact, the
  disagreements side by side, the claim ledger, the numbered sources, the limitations and
  every source considered."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from deepresearch.core.budget import BUDGET_PREFIX
from deepresearch.core.findings import contradictions_section, enforce_findings, findings_section
from deepresearch.core.gate import GateResult
from deepresearch.core.keyfacts import key_facts
from deepresearch.core.model_claims import claim_ledger, contradiction_pairs
from deepresearch.core.questions import analyze_question
from deepresearch.core.units import failed_units, failure_note
from deepresearch.models import (
    Evidence,
    Paragraph,
    Report,
    Section,
    Sentence,
    Source,
    SourceRef,
    SubQuestion,
)
from deepresearch.models.claims import ExtractedClaims
from deepresearch.models.report import ReportKind
from deepresearch.models.scores import SourceScores

QUOTES_PER_SECTION = 6


def number_sources(
    sentences: Iterable[Sentence], evidence: Mapping[str, Evidence], sources: Mapping[str, Source]
) -> list[SourceRef]:
    refs: dict[str, SourceRef] = {}
    for sentence in sentences:
        for cid in sentence.citations:
            item = evidence.get(cid)
            if item is None or item.source_id in refs or item.source_id not in sources:
                continue
            source = sources[item.source_id]
            refs[source.id] = SourceRef(
                id=source.id,
                number=len(refs) + 1,
                url=source.url,
                title=source.title or source.url,
                domain=source.domain,
                content_quality=source.content_quality,
                published=source.published,
            )
    return list(refs.values())


def best_evidence(
    evidence: Sequence[Evidence], limit: int, *, order: Sequence[str] = ()
) -> list[Evidence]:
    """Highest-scoring verified evidence, one per passage, at most ``limit``. ``order``:
    evidence ids to put first, in that order (the chain and the answer-bearing quotes,
    ``core.passages.rank_evidence``)."""
    seen: set[tuple[str, int]] = set()
    out = []
    first = {eid: i for i, eid in enumerate(order)}
    for item in sorted(evidence, key=lambda e: (first.get(e.id, len(first)), -e.score, e.id)):
        key = (item.source_id, item.start)
        if item.verified and key not in seen:
            seen.add(key)
            out.append(item)
    return out[:limit]


def extractive_sections(
    sub_questions: Sequence[SubQuestion],
    evidence: Sequence[Evidence],
    *,
    exclude: Collection[str] = (),
    order: Sequence[str] = (),
) -> list[Section]:
    """One section per sub-question with its best quotes (``order`` first, as in
    ``best_evidence``), one paragraph each, leaving out the evidence ids in ``exclude``
    (already shown as Verified Findings). No quote appears twice."""
    used: set[tuple[str, int]] = {(e.source_id, e.start) for e in evidence if e.id in exclude}
    sections: list[Section] = []
    for sq in sub_questions:
        mine = [e for e in evidence if e.sub_question_id == sq.id]
        picked = [
            e
            for e in best_evidence(mine, QUOTES_PER_SECTION, order=order)
            if (e.source_id, e.start) not in used
        ]
        if not picked:
            continue
        used.update((e.source_id, e.start) for e in picked)
        sections.append(
            Section(
                heading=sq.text,
                paragraphs=[Paragraph(sentences=[_quote_sentence(e)]) for e in picked],
            )
        )
    return sections


def _quote_sentence(item: Evidence) -> Sentence:
    return Sentence(text=f"“{item.quote}”", citations=[item.id])


def limitations(
    *,
    gate: GateResult | None,
    sub_questions: Sequence[SubQuestion],
    sources: Mapping[str, Source],
    model_errors: Sequence[str],
    answered: Collection[str] | None = None,
    open_leads: Sequence[str] = (),
    search_errors: Sequence[str] = (),
) -> list[str]:
    """What the run could not do. ``answered``: ids of sub-questions with verified
    evidence (else a sub-question's status decides); ``open_leads``: leads the verified
    quotes revealed that the run had no wave or unit left to follow; ``search_errors``:
    search providers that failed while the others answered ("provider: problem")."""
    # a budget that ended the run is its own line (``core.budget.with_budget_note``)
    model_errors = [m for m in model_errors if not m.startswith(BUDGET_PREFIX)]
    out = []
    if gate is not None and gate.status != "pass":
        out.append("The evidence did not meet the quality gate: " + "; ".join(gate.reasons) + ".")
    failed = {sq.id for sq in failed_units(sub_questions)}  # said below, with why
    unanswered = [
        sq.text
        for sq in sub_questions
        if sq.id not in failed
        and (sq.id not in answered if answered is not None else sq.status != "covered")
    ]
    if unanswered:
        out.append("No verified evidence was found for: " + "; ".join(unanswered) + ".")
    note = failure_note(sub_questions)
    if note:
        out.append(note)
    unread = [s for s in sources.values() if not s.fetched]
    if unread:
        out.append(f"{len(unread)} source(s) could not be read and were not quoted.")
    if open_leads:
        out.append(
            "Leads found in the evidence but not followed (no research wave or unit left): "
            + "; ".join(open_leads)
            + "."
        )
    if search_errors:
        out.append(
            "Search problems (the other providers' results were used): "
            + "; ".join(sorted(set(search_errors))[:3])
            + "."
        )
    if model_errors:
        out.append("Model problems: " + "; ".join(sorted(set(model_errors))[:3]) + ".")
    return out


@dataclass(frozen=True)
class Written:
    """What the writing produced: the report's kind, title and notice, the summary and
    sections, and the Verified Findings picked as (evidence id, quote)."""

    kind: ReportKind
    title: str
    notice: str | None
    summary: list[Sentence]
    sections: list[Section]
    picks: list[tuple[str, str]]


@dataclass(frozen=True)
class Assembled:
    report: Report
    findings_restored: int  # findings whose quote the writer altered, put back
    findings_dropped: int  # findings that named no known evidence


def assemble_report(
    written: Written,
    *,
    run_id: str,
    question: str,
    evidence: Sequence[Evidence],
    sources: Mapping[str, Source],
    considered: Iterable[SourceScores],
    gate: GateResult | None,
    sub_questions: Sequence[SubQuestion],
    model_errors: Sequence[str],
    open_leads: Sequence[str],
    created_at: datetime,
    search_errors: Sequence[str] = (),
    extracted: ExtractedClaims | None = None,
) -> Assembled:
    """The report (its usage is the run's, added when it is read: the recipe's
    ``result``). ``evidence``: the verified evidence; the report carries the cited.
    ``extracted``: the judge's checked claims, or None for the detector's alone."""
    by_id = {item.id: item for item in evidence}
    sections = list(written.sections)
    if written.picks:
        sections = [findings_section(written.picks), *sections]
    sections, restored, lost = enforce_findings(sections, by_id)
    # the judge's claims when some held (``core.model_claims``), else the detector's
    disagreements = contradiction_pairs(evidence, extracted)
    ledger = claim_ledger(
        evidence, {sid: source.rank_score for sid, source in sources.items()}, extracted
    )
    contradictions = contradictions_section(disagreements, by_id)
    if contradictions is not None:
        sections.append(contradictions)
    all_sentences = [
        *written.summary,
        *(s for sec in sections for p in sec.paragraphs for s in p.sentences),
    ]
    # a planned table's rows cite like sentences: their sources are numbered after them
    citing = [*all_sentences, *table_rows_citing(sections)]
    refs = number_sources(citing, by_id, sources)
    cited = {cid for sentence in citing for cid in sentence.citations}
    if written.kind == "extractive":
        sections = with_key_facts(question, sections, all_sentences, by_id)
    report = Report(
        run_id=run_id,
        question=question,
        title=written.title,
        kind=written.kind,
        summary=written.summary,
        sections=sections,
        sources=refs,
        evidence=[item for item in evidence if item.id in cited],
        limitations=limitations(
            gate=gate,
            sub_questions=sub_questions,
            sources=sources,
            model_errors=model_errors,
            answered={item.sub_question_id for item in evidence},
            open_leads=open_leads,
            search_errors=search_errors,
        ),
        notice=written.notice,
        claims=ledger,
        considered=considered_order(considered),
        created_at=created_at,
    )
    return Assembled(report, restored, lost)


def table_rows_citing(sections: Iterable[Section]) -> list[Sentence]:
    """Each row of the planned tables (body sections) as a textless sentence with its
    citations: what numbering sources and keeping evidence count besides sentences."""
    return [
        Sentence(text="", citations=row.citations)
        for section in sections
        if section.kind == "body" and section.table is not None
        for row in section.table.rows
    ]


def considered_order(considered: Iterable[SourceScores]) -> list[SourceScores]:
    """The "Sources considered" list of a report: the sources read first, best first."""
    return sorted(considered, key=lambda s: (s.decision != "read", -s.final))


def with_key_facts(
    question: str,
    sections: list[Section],
    sentences: Sequence[Sentence],
    by_id: Mapping[str, Evidence],
) -> list[Section]:
    """``sections`` with the key facts of the cited evidence (``core.keyfacts``, in the
    order the report cites it) after the Verified Findings, when the quotes state any."""
    order = dict.fromkeys(cid for sentence in sentences for cid in sentence.citations)
    facts = key_facts(analyze_question(question), [by_id[cid] for cid in order if cid in by_id])
    if facts is None:
        return sections
    at = 1 if sections and sections[0].kind == "verified_findings" else 0
    return [*sections[:at], facts, *sections[at:]]
