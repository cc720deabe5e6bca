"""What changed between two runs of a watch: new findings, quotes gone from a page read
again, findings now contradicted, new and vanished sources; an unchanged run is one line;
and the change report drawn in every text format from one document."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from deepresearch.core.watch_changes import compare, snapshot, summary_line
from deepresearch.export.formats import render_document
from deepresearch.export.watch_feed import atom_feed
from deepresearch.export.watch_report import change_document, change_json
from deepresearch.models import Report
from deepresearch.models.claims import Claim, ClaimLedger
from deepresearch.models.evidence import Evidence, Verification
from deepresearch.models.report import SourceRef
from deepresearch.models.watch import Watch

T1 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)
T2 = datetime(2026, 11, 2, 7, 0, tzinfo=UTC)
A = "http://a.test/page"
B = "http://b.test/page"
C = "http://c.test/page"


def _evidence(eid: str, url: str, quote: str, claim: str = "", verified: bool = True) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="sq1",
        claim=claim or quote,
        quote=quote,
        source_id=url,
        source_url=url,
        start=0,
        end=len(quote),
        verification=Verification(
            status="PASS" if verified else "FAIL", method="exact", score=1.0 if verified else 0.0
        ),
    )


def _report(run_id: str, evidence: list[Evidence], claims: list[Claim] | None = None) -> Report:
    urls = list(dict.fromkeys(e.source_url for e in evidence))
    return Report(
        run_id=run_id,
        question="What is the latest release?",
        title="t",
        kind="synthesized",
        sources=[
            SourceRef(id=u, number=i + 1, url=u, title=u, domain=u.split("/")[2])
            for i, u in enumerate(urls)
        ],
        evidence=evidence,
        claims=ClaimLedger(claims=claims or []),
    )


def _compare(before: Report | None, now: Report, read: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    earlier = snapshot(before, {A: T1, B: T1}) if before else None
    current = snapshot(now, {A: T2, B: T2, C: T2}, read=read)
    return compare(earlier, current, watch_id="w1", question=now.question, created_at=T2)


def test_unchanged_run_is_one_line() -> None:
    first = _report("r1", [_evidence("e1", A, "Version 1.0 was released in May.")])
    again = _report("r2", [_evidence("x9", A, "Version  1.0 was released in MAY.")])
    report = _compare(first, again)
    assert report.unchanged
    assert summary_line(report) == "no change since the last run"
    md = render_document(change_document(report), "md", lambda: change_json(report)).decode()
    assert "no change since the last run" in md


def test_new_and_gone_findings_and_sources() -> None:
    first = _report(
        "r1",
        [
            _evidence("e1", A, "Version 1.0 was released in May."),
            _evidence("e2", B, "The project has 3 maintainers."),
        ],
    )
    second = _report(
        "r2",
        [
            _evidence("e1", A, "Version 2.0 was released in November."),
            _evidence("e3", C, "A security fix shipped in 2.0.1."),
            _evidence("e4", C, "never verified", verified=False),
        ],
    )
    report = _compare(first, second)
    assert [f.quote for f in report.new_findings] == [
        "Version 2.0 was released in November.",
        "A security fix shipped in 2.0.1.",
    ]
    assert report.new_findings[0].fetched_at == T2
    # page A was read again and no longer carries the old quote
    [gone] = report.changed_findings
    assert gone.reason == "gone_from_page"
    assert gone.finding.quote == "Version 1.0 was released in May."
    assert gone.finding.fetched_at == T1
    assert [s.url for s in report.new_sources] == [C]
    # page B was not read at all: a vanished source, with its finding and read time
    [vanished] = report.vanished_sources
    assert vanished.url == B
    assert vanished.fetched_at == T1
    assert [f.quote for f in vanished.findings] == ["The project has 3 maintainers."]
    assert summary_line(report) == (
        "2 new findings, 1 finding no longer holds, 1 new source, 1 vanished source"
    )


def test_a_quote_still_on_its_page_is_no_change() -> None:
    """The new run read page A and did not pick the old quote, but the text it read still
    has it: not reported as gone (a quote no longer in the text is)."""
    first = _report(
        "r1", [_evidence("e1", A, "Version 1.0 was released in May."), _evidence("e2", A, "Old.")]
    )
    second = _report("r2", [_evidence("e3", A, "A new sentence.")])
    earlier = snapshot(first, {A: T1})
    current = snapshot(second, {A: T2})
    page = "Intro. Version 1.0  was released in may. A new sentence."
    report = compare(earlier, current, watch_id="w", question="q", created_at=T2, pages={A: page})
    assert [c.finding.quote for c in report.changed_findings] == ["Old."]


def test_a_finding_now_contradicted() -> None:
    quote = "The library supports Python 3.8."
    first = _report("r1", [_evidence("e1", A, quote, "It supports Python 3.8")])
    second = _report(
        "r2",
        [
            _evidence("e1", A, quote, "It supports Python 3.8"),
            _evidence("e2", C, "Support for Python 3.8 was dropped."),
        ],
        claims=[
            Claim(
                id="c1",
                text="It supports Python 3.8",
                sub_question_id="sq1",
                supporting=["e1"],
                contradicting=["e2"],
                contradiction=True,
            )
        ],
    )
    report = _compare(first, second)
    [changed] = report.changed_findings
    assert changed.reason == "contradicted"
    assert [f.quote for f in changed.contradicted_by] == ["Support for Python 3.8 was dropped."]


def test_first_run_everything_new() -> None:
    report = _compare(None, _report("r1", [_evidence("e1", A, "One quote.")]))
    assert report.previous_run is None
    assert len(report.new_findings) == 1
    assert [s.url for s in report.new_sources] == [A]


def test_every_text_format_from_one_document() -> None:
    first = _report("r1", [_evidence("e1", A, "Old [link](http://evil.test/x) quote.")])
    second = _report("r2", [_evidence("e2", A, "New quote <script>alert(1)</script>.")])
    report = _compare(first, second)
    document = change_document(report)
    md = render_document(document, "md", lambda: change_json(report)).decode()
    html = render_document(document, "html", lambda: change_json(report)).decode()
    data = json.loads(render_document(document, "json", lambda: change_json(report)))
    assert "New findings" in md and "Findings that no longer hold" in md
    assert "evil.test" not in md and "<script>" not in html
    assert data["summary"] == summary_line(report) and data["unchanged"] is False
    assert set(document.links()) == {A}
    assert render_document(document, "docx", lambda: "").startswith(b"PK")


def test_atom_feed() -> None:
    import xml.etree.ElementTree as ET

    first = _report("r1", [_evidence("e1", A, "One & only <quote>.")])
    report = _compare(None, first)
    watch = Watch(
        id="w1", owner="o", question="q & a", schedule="every 86400s", next_due=T2, created_at=T1
    )
    feed = ET.fromstring(atom_feed(watch, [report], base="http://127.0.0.1/feed.atom"))
    ns = {"a": "http://www.w3.org/2005/Atom"}
    assert feed.findtext("a:title", namespaces=ns) == "deepresearch watch: q & a"
    [entry] = feed.findall("a:entry", ns)
    assert entry.findtext("a:title", namespaces=ns) == "1 new finding, 1 new source"
    assert "One & only" in (entry.findtext("a:content", namespaces=ns) or "")
