"""What changed between two runs of a watch (issue 25), pure: a finished report read as a
``WatchSnapshot`` (its verified findings with their pages' read times, the pages it read,
its claims' contradictions), and two snapshots compared into a ``ChangeReport``.

A finding is its page and its quote (whitespace and case aside): the same quote on the
same page is the same finding, whatever the claim's wording. An earlier finding missing
from the new run is *gone from the page* when the new run read that page again and its
quote is not in the text read (when that text is known: a quote still on the page but not
picked this time is no change), else its page vanished (listed with the vanished
sources). An earlier finding is *contradicted*
when a claim of the new run that it supports (by its quote, or by the same claim) is
contradicted by evidence of the new run."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from deepresearch.models import Report
from deepresearch.models.watch import (
    ChangedFinding,
    ChangeReport,
    Contradiction,
    SourceChange,
    WatchFinding,
    WatchSnapshot,
)

FindingKey = tuple[str, str]


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def finding_key(finding: WatchFinding) -> FindingKey:
    return (finding.source_url, _norm(finding.quote))


def snapshot(
    report: Report, fetched_at: Mapping[str, datetime], *, read: Iterable[str] = ()
) -> WatchSnapshot:
    """``report``'s verified findings (with ``fetched_at[url]``, when the run read each
    page), the pages it read (its sources and ``read``) and its contradictions."""
    by_id: dict[str, WatchFinding] = {}
    for evidence in report.evidence:
        if evidence.verified:
            by_id[evidence.id] = WatchFinding(
                claim=evidence.claim,
                quote=evidence.quote,
                source_url=evidence.source_url,
                fetched_at=fetched_at.get(evidence.source_url),
            )
    contradictions = [
        Contradiction(
            claim=claim.text,
            supported_by=tuple(by_id[i] for i in claim.supporting if i in by_id),
            contradicted_by=tuple(by_id[i] for i in claim.contradicting if i in by_id),
        )
        for claim in (report.claims.claims if report.claims else [])
        if claim.contradicting
    ]
    urls = dict.fromkeys([*(source.url for source in report.sources), *read])
    return WatchSnapshot(
        run_id=report.run_id,
        finished_at=report.created_at,
        findings=_unique(by_id.values()),
        sources=tuple(urls),
        contradictions=tuple(c for c in contradictions if c.contradicted_by),
    )


def _unique(findings: Iterable[WatchFinding]) -> tuple[WatchFinding, ...]:
    seen: dict[FindingKey, WatchFinding] = {}
    for finding in findings:
        seen.setdefault(finding_key(finding), finding)
    return tuple(seen.values())


def _contradicting(finding: WatchFinding, now: WatchSnapshot) -> tuple[WatchFinding, ...]:
    key, claim = finding_key(finding), _norm(finding.claim)
    against: list[WatchFinding] = []
    for contradiction in now.contradictions:
        supports = any(finding_key(f) == key for f in contradiction.supported_by)
        if supports or _norm(contradiction.claim) == claim:
            against.extend(contradiction.contradicted_by)
    return _unique(f for f in against if finding_key(f) != key)


def _source_changes(
    urls: Iterable[str], findings: Iterable[WatchFinding], when: Mapping[str, datetime]
) -> tuple[SourceChange, ...]:
    listed = list(findings)
    return tuple(
        SourceChange(
            url=url,
            fetched_at=when.get(url),
            findings=tuple(f for f in listed if f.source_url == url),
        )
        for url in urls
    )


def _read_times(snap: WatchSnapshot) -> dict[str, datetime]:
    return {f.source_url: f.fetched_at for f in snap.findings if f.fetched_at is not None}


def compare(
    before: WatchSnapshot | None,
    now: WatchSnapshot,
    *,
    watch_id: str,
    question: str,
    created_at: datetime,
    pages: Mapping[str, str] | None = None,
) -> ChangeReport:
    """What changed from ``before`` (None: the watch's first run, every finding is new)
    to ``now``; ``pages``: the text of each page ``now`` read, by URL, where known."""
    texts = {url: _norm(text) for url, text in (pages or {}).items()}
    if before is None:
        before = WatchSnapshot(run_id="")
    earlier = {finding_key(f): f for f in before.findings}
    current = {finding_key(f): f for f in now.findings}
    read_now = set(now.sources)
    changed: list[ChangedFinding] = []
    for key, finding in earlier.items():
        page = texts.get(finding.source_url, "")
        if key not in current and finding.source_url in read_now and key[1] not in page:
            changed.append(ChangedFinding(finding=finding, reason="gone_from_page"))
            continue
        against = _contradicting(finding, now)
        if against:
            changed.append(
                ChangedFinding(finding=finding, reason="contradicted", contradicted_by=against)
            )
    new_urls = [url for url in now.sources if url not in set(before.sources)]
    gone_urls = [url for url in before.sources if url not in read_now]
    return ChangeReport(
        watch_id=watch_id,
        question=question,
        run_id=now.run_id,
        previous_run=before.run_id or None,
        created_at=created_at,
        new_findings=tuple(f for key, f in current.items() if key not in earlier),
        changed_findings=tuple(changed),
        new_sources=_source_changes(new_urls, now.findings, _read_times(now)),
        vanished_sources=_source_changes(gone_urls, before.findings, _read_times(before)),
    )


def summary_line(report: ChangeReport) -> str:
    """The report in one line: "no change", or what changed, counted."""
    if report.error:
        return f"the run did not finish: {report.error}"
    if report.unchanged:
        return "no change since the last run"
    parts = (
        (len(report.new_findings), "new finding", "new findings"),
        (len(report.changed_findings), "finding no longer holds", "findings no longer hold"),
        (len(report.new_sources), "new source", "new sources"),
        (len(report.vanished_sources), "vanished source", "vanished sources"),
    )
    return ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in parts if n)
