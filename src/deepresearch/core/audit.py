"""The report audit's policy, applied to verdicts the audit stage gathered. Pure.

Every sentence that states a fact is checked against the passages it cites (by the judge
model, or by ``core.support``'s deterministic checker). Policies:

- ``strict`` (default): unsupported sentences, and factual sentences that cite nothing,
  are removed; the report says how many;
- ``mark``: they stay, each carrying its verdict so renderers flag it;
- ``off``: nothing is checked.

A planned section's table is checked row by row, each row (its cells, with the evidence
they cite) like a sentence, and removed (strict) or marked like one. Sources are renumbered afterwards, so a source cited only by a removed
sentence or row is no longer listed."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Literal

from deepresearch.core.assemble import number_sources, table_rows_citing
from deepresearch.core.findings import quote_text
from deepresearch.core.section_check import EMPTY_CELLS
from deepresearch.models import (
    Audit,
    AuditPolicy,
    AuditVerdict,
    Evidence,
    Paragraph,
    Report,
    Section,
    Sentence,
    Source,
    Table,
)

Verdicts = Mapping[int, tuple[AuditVerdict, str | None]]
#: (section index, row index) -> the row's verdict
RowVerdicts = Mapping[tuple[int, int], tuple[AuditVerdict, str | None]]


def is_quote(sentence: Sentence, evidence: Mapping[str, Evidence]) -> bool:
    """A sentence that is exactly the verified quote it cites needs no further check."""
    if len(sentence.citations) != 1:
        return False
    item = evidence.get(sentence.citations[0])
    return item is not None and item.verified and sentence.text == quote_text(item)


def numbered_sentences(report: Report) -> list[Sentence]:
    """The report's sentences in reading order; verdicts are keyed by this position."""
    return report.all_sentences()


def checked_rows(report: Report) -> dict[tuple[int, int], Sentence]:
    """The rows of the report's planned tables, each as one sentence ("column: cell; ...",
    empty cells left out) citing what its cells cite, keyed by (section, row): a row is
    one statement about one thing, checked in one call. The key facts table is not here:
    its rows repeat quotes the report's sentences cite."""
    out: dict[tuple[int, int], Sentence] = {}
    for s, section in enumerate(report.sections):
        if section.table is None or section.kind != "body":
            continue
        for r, row in enumerate(section.table.rows):
            said = [
                f"{column}: {cell}"
                for column, cell in zip(section.table.columns, row.cells, strict=False)
                if cell.strip().lower() not in EMPTY_CELLS
            ]
            cited = [cid for ids in row.cell_citations for cid in ids] or row.citations
            if said:
                out[(s, r)] = Sentence(text="; ".join(said), citations=list(dict.fromkeys(cited)))
    return out


def apply_audit(
    report: Report,
    verdicts: Verdicts,
    *,
    policy: AuditPolicy,
    method: Literal["judge", "deterministic", "mixed", "none"],
    sources: Mapping[str, Source],
    findings_restored: int = 0,
    findings_dropped: int = 0,
    invented_citations: int = 0,
    findings_checked: int = 0,
    findings_partial: int = 0,
    findings_unsupported: int = 0,
    rows: RowVerdicts | None = None,
) -> Report:
    """The report with the policy applied to ``verdicts`` (by sentence position) and
    ``rows`` (planned table rows, by section and row index), and its Audit filled in."""
    rows = rows or {}
    counts = {"supported": 0, "partial": 0, "unsupported": 0, "uncited": 0}
    for verdict, _ in [*verdicts.values(), *rows.values()]:
        counts[verdict] += 1
    checked = counts["supported"] + counts["partial"] + counts["unsupported"]
    pruner = _Pruner(policy, verdicts, rows)
    summary, sections = pruner.report(report)
    removed = pruner.removed

    evidence = {item.id: item for item in report.evidence}
    remaining = [*summary, *(s for sec in sections for p in sec.paragraphs for s in p.sentences)]
    cited = {cid for sentence in remaining for cid in sentence.citations}
    sections = [section for section in map(_rows_still_cited(cited), sections) if section]
    remaining += table_rows_citing(sections)
    cited = {cid for sentence in remaining for cid in sentence.citations}
    audit = Audit(
        policy=policy,
        method=method if checked or counts["uncited"] else "none",
        sentences=len(numbered_sentences(report)) + len(rows),
        checked=checked,
        supported=counts["supported"],
        partial=counts["partial"],
        unsupported=counts["unsupported"],
        uncited_factual=counts["uncited"],
        removed=removed,
        findings_restored=findings_restored,
        findings_dropped=findings_dropped,
        invented_citations=invented_citations,
        findings_checked=findings_checked,
        findings_partial=findings_partial,
        findings_unsupported=findings_unsupported,
        citation_precision=round((counts["supported"] + counts["partial"]) / checked, 4)
        if checked
        else None,
    )
    return report.model_copy(
        update={
            "summary": summary,
            "sections": sections,
            "sources": number_sources(remaining, evidence, sources),
            "evidence": [item for item in report.evidence if item.id in cited],
            "limitations": [*report.limitations, *_limitations(audit)],
            "audit": audit,
        }
    )


def reaudit(
    report: Report,
    verdicts: Verdicts,
    *,
    policy: AuditPolicy,
    method: Literal["judge", "deterministic", "mixed", "none"],
    sources: Mapping[str, Source],
    replaced: Sequence[AuditVerdict | None],
    edited: int,
    removed_by_person: int,
) -> Report:
    """A reviewed report's edited sentences audited (issue 28): ``verdicts`` (by position
    in the edited report) are applied with the policy exactly as ``apply_audit`` applies
    the writer's, and the report's Audit counts the new verdicts in place of those the
    edited and removed sentences had (``replaced``); its limitations say what the review
    changed. A source no sentence cites any more leaves the list."""
    previous = report.audit or Audit(policy=policy)
    pruner = _Pruner(policy, verdicts, {})
    summary, sections = pruner.report(report)
    counts = {
        "supported": previous.supported,
        "partial": previous.partial,
        "unsupported": previous.unsupported,
        "uncited": previous.uncited_factual,
    }
    for old in replaced:
        if old is not None:
            counts[old] -= 1
    for verdict, _ in verdicts.values():
        counts[verdict] += 1
    checked = counts["supported"] + counts["partial"] + counts["unsupported"]
    evidence = {item.id: item for item in report.evidence}
    remaining = [*summary, *(s for sec in sections for p in sec.paragraphs for s in p.sentences)]
    cited = {cid for sentence in remaining for cid in sentence.citations}
    sections = [section for section in map(_rows_still_cited(cited), sections) if section]
    remaining += table_rows_citing(sections)
    cited = {cid for sentence in remaining for cid in sentence.citations}
    audit = previous.model_copy(
        update={
            "method": _joined(previous.method, method if verdicts else "none"),
            "sentences": previous.sentences - removed_by_person,
            "checked": checked,
            "supported": counts["supported"],
            "partial": counts["partial"],
            "unsupported": counts["unsupported"],
            "uncited_factual": counts["uncited"],
            "removed": previous.removed + pruner.removed,
            "citation_precision": round((counts["supported"] + counts["partial"]) / checked, 4)
            if checked
            else None,
        }
    )
    said = f"A person's review edited {edited} sentence(s)" if edited else "A person's review"
    if removed_by_person:
        said += f"{' and' if edited else ''} removed {removed_by_person} sentence(s)"
    if edited and policy != "off":
        said += "; the edits were checked against their citations like the writer's sentences"
        if pruner.removed:
            said += f", and the audit removed {pruner.removed} they do not support"
    return report.model_copy(
        update={
            "summary": summary,
            "sections": sections,
            "sources": number_sources(remaining, evidence, sources),
            "evidence": [item for item in report.evidence if item.id in cited],
            "limitations": [*report.limitations, said + "."],
            "audit": audit,
        }
    )


def _joined(first: str, second: str) -> Literal["judge", "deterministic", "mixed", "none"]:
    """The audit's method once a second round of checks was made with ``second``."""
    used = {first, second} - {"none"}
    if not used:
        return "none"
    if len(used) > 1 or "mixed" in used:
        return "mixed"
    return "judge" if "judge" in used else "deterministic"


class _Pruner:
    """The policy applied to the report's sentences, in reading order (verdicts are keyed
    by position), and to its planned tables' rows; counts what it removed."""

    def __init__(self, policy: AuditPolicy, verdicts: Verdicts, rows: RowVerdicts) -> None:
        self.policy = policy
        self.verdicts = verdicts
        self.rows = rows
        self.removed = 0
        self._index = 0

    def report(self, report: Report) -> tuple[list[Sentence], list[Section]]:
        """The summary and the sections kept (a section left empty is dropped)."""
        summary = self._sentences(report.summary)
        sections: list[Section] = []
        for at, section in enumerate(report.sections):
            paragraphs = []
            for paragraph in section.paragraphs:
                kept = self._sentences(paragraph.sentences)
                if kept:
                    paragraphs.append(Paragraph(sentences=kept))
            table = self._table(at, section.table)
            if paragraphs or table is not None:
                update = {"paragraphs": paragraphs, "table": table}
                sections.append(section.model_copy(update=update))
        return summary, sections

    def _drops(self, verdict: AuditVerdict) -> bool:
        return self.policy == "strict" and verdict in ("unsupported", "uncited")

    def _sentences(self, sentences: Sequence[Sentence]) -> list[Sentence]:
        kept = []
        for sentence in sentences:
            found = self.verdicts.get(self._index)
            self._index += 1
            if found is None:
                kept.append(sentence)
            elif self._drops(found[0]):
                self.removed += 1
            else:
                update = {"audit": found[0], "audit_note": found[1]}
                kept.append(sentence.model_copy(update=update))
        return kept

    def _table(self, at: int, table: Table | None) -> Table | None:
        if table is None:
            return None
        kept = []
        for r, row in enumerate(table.rows):
            found = self.rows.get((at, r))
            if found is None:
                kept.append(row)
            elif self._drops(found[0]):
                self.removed += 1
            else:
                kept.append(row.model_copy(update={"audit": found[0], "audit_note": found[1]}))
        return table.model_copy(update={"rows": kept}) if kept else None


def _limitations(audit: Audit) -> list[str]:
    """What the report's limitations add about the audit and the findings check."""
    out = []
    if audit.policy == "strict" and audit.removed:
        out.append(
            f"The audit removed {audit.removed} sentence(s) or table row(s) that their cited "
            "passages do not support or that stated a fact without a citation."
        )
    if audit.invented_citations:
        out.append(
            f"The writer cited {audit.invented_citations} piece(s) of evidence that do not exist; those citations were dropped."
        )
    if audit.findings_unsupported:
        out.append(
            f"The findings check dropped {audit.findings_unsupported} finding(s) whose quote "
            "does not support the claim made of it; the writer never saw them."
        )
    if audit.findings_restored:
        out.append(
            f"{audit.findings_restored} Verified Finding(s) altered by the writer were restored to the exact quote."
        )
    return out


def cited_passages(sentence: Sentence, evidence: Mapping[str, Evidence]) -> list[str]:
    return [evidence[cid].quote for cid in sentence.citations if cid in evidence]


def _rows_still_cited(cited: Collection[str]) -> Callable[[Section], Section | None]:
    """A key facts row stands on evidence the report's sentences cite: rows whose evidence
    a removed sentence took with it go too, and a table left with no row goes (None when
    nothing of the section is left). A planned table's rows cite for themselves."""

    def keep(section: Section) -> Section | None:
        if section.table is None or section.kind == "body":
            return section
        rows = [row for row in section.table.rows if set(row.citations) <= set(cited)]
        if rows:
            table = section.table.model_copy(update={"rows": rows})
            return section.model_copy(update={"table": table})
        return section.model_copy(update={"table": None}) if section.paragraphs else None

    return keep


#: sentences one batched audit call judges at most (a small batch keeps each verdict as
#: careful as a call of its own)
AUDIT_PER_CALL = 3


def audit_batches(count: int, *, slots: int, per_call: int = AUDIT_PER_CALL) -> list[int]:
    """How many of the ``count`` sentences to check go to each judge call, in order.

    One sentence a call while they fit in the judge's ``slots`` (calls in flight at once):
    every call then runs in the same round. Beyond that, one call per slot each judging
    several sentences (at most ``per_call``), so the audit is still one round instead of a
    second one waiting for free slots: that round is pure waiting on the run's critical
    path. Past ``slots * per_call`` sentences, as many calls of ``per_call`` as needed,
    the sentences spread evenly."""
    if count <= 0:
        return []
    if count <= slots:
        return [1] * count
    calls = max(slots, -(-count // max(per_call, 1)))
    size, extra = divmod(count, calls)
    return [size + 1 if i < extra else size for i in range(calls)]
