"""A watch's change report (issue 25) as the page-neutral ``Document`` every format is
drawn from (``export.formats.render_document``), and as JSON. Quotes and claims come from
web pages and a model: neutralized and flattened as a research report's are; the only
links are the pages the runs read."""

from __future__ import annotations

import json
from datetime import datetime

from deepresearch.core.watch_changes import summary_line
from deepresearch.export.report_text import flat, neutralize
from deepresearch.models.document import Block, Document, Heading, ItemList, Paragraph, Span
from deepresearch.models.watch import ChangedFinding, ChangeReport, SourceChange, WatchFinding


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value is not None else "read time unknown"


def _safe(text: str) -> str:
    return flat(neutralize(text))


def _finding(finding: WatchFinding) -> tuple[Span, ...]:
    return (
        Span(_safe(finding.claim), bold=True),
        Span(f" “{_safe(finding.quote)}” — "),
        Span(finding.source_url, url=finding.source_url),
        Span(f", read {_when(finding.fetched_at)}", own=True),
    )


def _changed(item: ChangedFinding) -> tuple[Span, ...]:
    why = (
        "its quote is no longer on the page"
        if item.reason == "gone_from_page"
        else "now contradicted by: "
        + "; ".join(f"“{_safe(f.quote)}” ({f.source_url})" for f in item.contradicted_by)
    )
    return (*_finding(item.finding), Span(f" — {why}", own=True))


def _source(change: SourceChange) -> tuple[Span, ...]:
    quotes = "; ".join(f"“{_safe(f.quote)}”" for f in change.findings)
    return (
        Span(change.url, url=change.url),
        Span(f", read {_when(change.fetched_at)}", own=True),
        Span(f": {quotes}" if quotes else ""),
    )


def _section(title: str, items: list[tuple[Span, ...]]) -> list[Block]:
    if not items:
        return []
    return [Heading(2, title), ItemList(tuple(items))]


def change_document(report: ChangeReport) -> Document:
    """The change report's document: its one-line summary, then each kind of change."""
    against = (
        f"compared with run {report.previous_run}"
        if report.previous_run
        else "the watch's first run: every finding is new"
    )
    blocks: list[Block] = [
        Paragraph((Span(summary_line(report), own=True),), "notice"),
        Paragraph((Span(f"Run {report.run_id}, {against}.", own=True),), "note"),
    ]
    blocks += _section("New findings", [_finding(f) for f in report.new_findings])
    blocks += _section(
        "Findings that no longer hold", [_changed(c) for c in report.changed_findings]
    )
    blocks += _section("New sources", [_source(s) for s in report.new_sources])
    blocks += _section("Vanished sources", [_source(s) for s in report.vanished_sources])
    return Document(
        title=f"What changed: {_safe(report.question)}",
        blocks=tuple(blocks),
        subject=_safe(report.question),
        created=report.created_at,
    )


def change_json(report: ChangeReport) -> str:
    """The change report as JSON, with its one-line summary."""
    data = report.model_dump(mode="json")
    data["summary"] = summary_line(report)
    data["unchanged"] = report.unchanged
    return json.dumps(data, ensure_ascii=False, indent=2)
