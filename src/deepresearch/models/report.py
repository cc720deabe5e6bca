"""The report: sections of paragraphs of sentences, each sentence citing evidence ids."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field

from deepresearch.models.claims import ClaimLedger
from deepresearch.models.evaluation import EvalResult
from deepresearch.models.evidence import Evidence
from deepresearch.models.figures import ReportFigure
from deepresearch.models.library import LibraryReuse
from deepresearch.models.scores import SourceScores
from deepresearch.models.source import ContentQuality
from deepresearch.models.thread import FollowupInfo
from deepresearch.models.usage import Usage

#: report kinds that are replies to the user, not research: nothing to evaluate or follow
#: up, and their first summary line is the reply
ReplyKind = Literal["chitchat", "refusal", "clarification"]
REPLY_KINDS: tuple[ReplyKind, ...] = get_args(ReplyKind)
ReportKind = Literal["synthesized", "extractive", "abort", ReplyKind, "unresearched"]
AuditVerdict = Literal["supported", "partial", "unsupported", "uncited"]
AuditPolicy = Literal["strict", "mark", "off"]
SectionKind = Literal["body", "verified_findings", "contradictions", "key_facts"]
#: how a section is laid out: running prose, a bulleted list (each paragraph one item), or
#: a table (a timeline and a comparison are tables too: dates or things side by side)
SectionLayout = Literal["prose", "list", "table", "timeline", "comparison"]


class Sentence(BaseModel):
    text: str
    citations: list[str] = Field(default_factory=list, description="evidence ids")
    audit: AuditVerdict | None = Field(
        default=None, description="the audit's verdict; None when not checked (not factual)"
    )
    audit_note: str | None = None


class Paragraph(BaseModel):
    sentences: list[Sentence]


class TableRow(BaseModel):
    """One row of a table: its cells (text taken verbatim from the quotes it cites) and the
    evidence it cites, shown as the row's source marks."""

    cells: list[str]
    citations: list[str] = Field(default_factory=list, description="evidence ids")
    cell_citations: list[list[str]] = Field(
        default_factory=list,
        description="each cell's own evidence ids, as a sentence cites (empty: the row's)",
    )
    audit: AuditVerdict | None = Field(
        default=None, description="the audit's verdict on the row's cells (the worst of them)"
    )
    audit_note: str | None = None


class Table(BaseModel):
    columns: list[str]
    rows: list[TableRow] = Field(default_factory=list)


class Section(BaseModel):
    heading: str
    paragraphs: list[Paragraph] = Field(default_factory=list)
    kind: SectionKind = "body"
    layout: SectionLayout = "prose"
    #: a table after the paragraphs (the extractive report's key facts); its rows cite only
    #: evidence the report's sentences already cite
    table: Table | None = None


class Audit(BaseModel):
    """What the audit checked in the finished report, and what it did about it."""

    policy: AuditPolicy
    method: Literal["judge", "deterministic", "mixed", "none"] = "none"
    sentences: int = 0
    checked: int = 0
    supported: int = 0
    partial: int = 0
    unsupported: int = 0
    uncited_factual: int = 0
    removed: int = 0
    invented_citations: int = Field(
        default=0, description="citations to evidence that does not exist, dropped"
    )
    findings_restored: int = 0
    findings_dropped: int = 0
    findings_checked: int = Field(
        default=0, description="verified findings the findings check read against their quote"
    )
    findings_partial: int = 0
    findings_unsupported: int = Field(
        default=0, description="findings their quote does not support: never shown to the writer"
    )
    citation_precision: float | None = Field(
        default=None,
        description="share of checked cited sentences whose citations support them (fully or partly)",
    )


class SourceRef(BaseModel):
    id: str
    number: int = Field(description="the [n] used in the text")
    url: str
    title: str
    domain: str
    content_quality: ContentQuality | None = Field(
        default=None, description="the page's content-quality tier (seed 001), when known"
    )
    published: datetime | None = Field(
        default=None, description="when the page says it was published, where known"
    )
    library_run: str | None = Field(
        default=None, description="the earlier run of your library its quotes come from"
    )
    fetched_at: datetime | None = Field(
        default=None, description="a library source's page: when it was read"
    )


class Report(BaseModel):
    run_id: str
    question: str
    title: str
    kind: ReportKind
    summary: list[Sentence] = Field(default_factory=list)
    sections: list[Section] = Field(default_factory=list)
    sources: list[SourceRef] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)
    notice: str | None = Field(default=None, description="a label shown above the report")
    audit: Audit | None = None
    considered: list[SourceScores] = Field(
        default_factory=list,
        description="every candidate source with its scores and why it was read or dropped",
    )
    claims: ClaimLedger | None = Field(
        default=None,
        description="claims with supporting and contradicting evidence, and confidence",
    )
    usage: Usage = Field(default_factory=Usage)
    evaluation: EvalResult | None = Field(
        default=None, description="the report's evaluation, when it was evaluated"
    )
    created_at: datetime | None = None
    followup: FollowupInfo | None = Field(
        default=None, description="a follow-up's thread: its turn, what it reused, a topic shift"
    )
    library: LibraryReuse | None = Field(
        default=None,
        description="what the run reused from your library: quotes, pages fetched again, "
        "quotes no longer on their page",
    )
    figures: list[ReportFigure] = Field(
        default_factory=list,
        description="figures from the cited sources, each placed in a section (issue 26)",
    )

    def cited_evidence_ids(self) -> list[str]:
        """Evidence the sentences cite, then evidence only a table row cites."""
        seen: dict[str, None] = {}
        for sentence in self.all_sentences():
            for cid in sentence.citations:
                seen.setdefault(cid, None)
        for section in self.sections:
            for row in section.table.rows if section.table is not None else ():
                for cid in row.citations:
                    seen.setdefault(cid, None)
        return list(seen)

    def all_sentences(self) -> list[Sentence]:
        out = list(self.summary)
        for section in self.sections:
            for paragraph in section.paragraphs:
                out.extend(paragraph.sentences)
        return out
