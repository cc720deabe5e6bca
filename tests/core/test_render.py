"""Report rendering: markdown, HTML and JSON from one Report."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest

from deepresearch.core.audit import apply_audit, numbered_sentences
from deepresearch.export.report_render import render, to_html, to_json, to_markdown
from deepresearch.export.report_text import citation_numbers, considered_name
from deepresearch.models import (
    ClaimLedger,
    Evidence,
    Paragraph,
    Report,
    Section,
    Sentence,
    SourceRef,
    Table,
    TableRow,
    Usage,
    Verification,
)
from deepresearch.models.scores import SourceScores

PASS = Verification(status="PASS", method="exact", score=1.0, start=0, end=5)
HOSTILE = '<script>alert("x")</script>'


def ev(eid: str, source_id: str, quote: str) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="q1",
        claim=f"claim {eid}",
        quote=quote,
        source_id=source_id,
        source_url=f"https://{source_id}.example/",
        start=0,
        end=len(quote),
        verification=PASS,
    )


def ref(sid: str, number: int, title: str) -> SourceRef:
    return SourceRef(
        id=sid, number=number, url=f"https://{sid}.example/", title=title, domain=f"{sid}.example"
    )


def make_report(**overrides: object) -> Report:
    evidence = [
        ev("e1", "sb", "Bees pollinate\n  many crops."),
        ev("e2", "sa", "Ants farm aphids."),
        ev("e3", "sb", "Bees dance to share directions."),
        ev("e4", "sc", "Never cited."),
    ]
    fields: dict[str, object] = {
        "run_id": "run-abc",
        "question": "How do insects cooperate?",
        "title": "Insect cooperation",
        "kind": "synthesized",
        "summary": [
            Sentence(text="Bees pollinate crops.", citations=["e1"]),
            Sentence(text="Ants farm.", citations=["e2", "ghost"]),
        ],
        "sections": [
            Section(
                heading="Bees",
                paragraphs=[
                    Paragraph(
                        sentences=[
                            Sentence(text="Bees dance.", citations=["e3", "e1"]),
                            Sentence(text="Uncited remark."),
                        ]
                    )
                ],
            )
        ],
        "sources": [ref("sb", 1, "Bee facts"), ref("sa", 2, "Ant facts")],
        "evidence": evidence,
        "limitations": ["Only two sources."],
        "suggestions": ["Read more."],
        "usage": Usage(calls=3, input_tokens=100, output_tokens=50),
        "created_at": datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC),
    }
    fields.update(overrides)
    return Report.model_validate(fields)


def test_citation_numbers_map_evidence_to_its_source_number() -> None:
    assert citation_numbers(make_report()) == {"e1": 1, "e2": 2, "e3": 1}


def test_markdown_citations_match_the_sources() -> None:
    md = to_markdown(make_report())
    assert md.startswith("# Insect cooperation\n")
    assert "Bees pollinate crops. [1] Ants farm. [2]" in md
    # two quotes of one source make one mark; an uncited sentence gets none
    assert "Bees dance. [1] Uncited remark.\n" in md
    assert "[3]" not in md
    assert "## Bees" in md
    assert "- Only two sources." in md and "- Read more." in md


def test_markdown_quotes_appear_under_their_source() -> None:
    md = to_markdown(make_report())
    sources = md.split("## Sources\n", 1)[1]
    blocks = re.split(r"\n(?=\d+\. \[)", sources.strip())
    assert blocks[0].startswith("1. [Bee facts](https://sb.example/) — sb.example")
    assert "> “Bees pollinate many crops.”" in blocks[0]  # line breaks flattened
    assert "> “Bees dance to share directions.”" in blocks[0]
    assert "Ants farm aphids" not in blocks[0]
    assert blocks[1].startswith("2. [Ant facts](https://sa.example/) — sa.example")
    assert "> “Ants farm aphids.”" in blocks[1]
    assert "Never cited." not in md


def test_each_source_says_the_content_quality_of_its_page() -> None:
    report = make_report()
    first = report.sources[0].model_copy(update={"content_quality": "HIGH"})
    report = report.model_copy(update={"sources": [first, *report.sources[1:]]})
    md = to_markdown(report)
    assert "1. [Bee facts](https://sb.example/) — sb.example · content: HIGH" in md
    assert "2. [Ant facts](https://sa.example/) — sa.example\n" in md  # not known: not said
    assert '<span class="domain">sb.example · content: HIGH</span>' in to_html(report)


def test_markdown_escapes_brackets_in_titles_and_ends_with_usage() -> None:
    report = make_report(sources=[ref("sb", 1, "[Bees] and [more]"), ref("sa", 2, "Ants")])
    report.summary[1].citations.remove("ghost")
    md = to_markdown(report)
    assert "1. [\\[Bees\\] and \\[more\\]](https://sb.example/)" in md
    assert md.endswith(
        "_Run run-abc: 2 sources cited, 3 verified quotes, 3 model calls, "
        "100 input and 50 output tokens, cost $0.0000._\n"
    )


def test_markdown_shows_the_notice() -> None:
    md = to_markdown(make_report(notice="Extractive report."))
    assert "> Extractive report.\n" in md


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.cites: list[tuple[str, str, str]] = []  # (href, title, text)
        self.source_quotes: dict[str, list[str]] = {}
        self._current_li: str | None = None
        self._in_quote = False
        self._in_cite: tuple[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = {k: v or "" for k, v in attrs}
        if tag == "li" and values.get("id", "").startswith("src-"):
            self._current_li = values["id"]
            self.source_quotes[self._current_li] = []
        if tag == "blockquote":
            self._in_quote = True
        if tag == "a" and values.get("class") == "cite":
            self._in_cite = (values["href"], values["title"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "li":
            self._current_li = None
        if tag == "blockquote":
            self._in_quote = False

    def handle_data(self, data: str) -> None:
        if self._in_quote and self._current_li:
            self.source_quotes[self._current_li].append(data)
        if self._in_cite:
            self.cites.append((*self._in_cite, data))
            self._in_cite = None


def parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def test_html_citations_link_to_their_sources_with_the_quote() -> None:
    page = to_html(make_report())
    found = parse(page)
    assert found.cites == [
        ("#src-1", "Bees pollinate many crops.", "[1]"),
        ("#src-2", "Ants farm aphids.", "[2]"),
        ("#src-1", "Bees dance to share directions.", "[1]"),
    ]
    assert found.source_quotes == {
        "src-1": ["Bees pollinate many crops.", "Bees dance to share directions."],
        "src-2": ["Ants farm aphids."],
    }
    assert "<title>Insect cooperation</title>" in page


def test_html_escapes_everything_hostile() -> None:
    evidence = [ev("e1", "sb", HOSTILE + ' and "quotes" & <b>tags</b>')]
    report = make_report(
        title=HOSTILE,
        question=HOSTILE,
        notice=HOSTILE,
        summary=[Sentence(text=HOSTILE, citations=["e1"])],
        sections=[
            Section(heading=HOSTILE, paragraphs=[Paragraph(sentences=[Sentence(text=HOSTILE)])])
        ],
        sources=[
            SourceRef(
                id="sb",
                number=1,
                url='https://sb.example/"><script>alert(1)</script>',
                title=HOSTILE,
                domain=HOSTILE,
            )
        ],
        evidence=evidence,
        limitations=[HOSTILE],
        suggestions=[HOSTILE],
    )
    page = to_html(report)
    assert "<script" not in page.lower()
    assert "<b>" not in page
    assert "&lt;script&gt;" in page
    found = parse(page)
    assert "script" not in found.tags and "b" not in found.tags
    # the quote survives, escaped, both as the citation's title and under its source
    assert found.cites[0][1] == HOSTILE + ' and "quotes" & <b>tags</b>'
    assert found.source_quotes["src-1"] == [HOSTILE + ' and "quotes" & <b>tags</b>']


def test_json_round_trips_to_the_same_report() -> None:
    report = make_report(notice="Note ✓ – ünïcode")
    text = to_json(report)
    assert text.endswith("\n")
    assert "ünïcode" in text  # not \u-escaped
    assert Report.model_validate_json(text) == report
    assert json.loads(text)["sources"][0]["number"] == 1


@pytest.mark.parametrize(
    ("fmt", "start"), [("md", "# "), ("html", "<!doctype html>"), ("json", "{")]
)
def test_render_dispatches_by_format(fmt: str, start: str) -> None:
    assert render(make_report(), fmt).startswith(start)


def test_render_rejects_unknown_formats() -> None:
    with pytest.raises(ValueError, match="unknown report format 'pdf'"):
        render(make_report(), "pdf")


def test_an_empty_report_renders() -> None:
    report = Report(run_id="r", question="Q?", title="Nothing found", kind="abort")
    md = to_markdown(report)
    assert md.startswith("# Nothing found\n")
    assert "## Sources" not in md
    page = to_html(report)
    assert "<h1>Nothing found</h1>" in page
    assert 'class="sources"' not in page
    assert Report.model_validate_json(to_json(report)) == report


def test_marks_of_one_sentence_are_in_source_order() -> None:
    report = make_report(summary=[Sentence(text="Both.", citations=["e2", "e3", "e1"])])
    assert "Both. [1][2]\n" in to_markdown(report)
    assert [href for href, _, _ in parse(to_html(report)).cites] == ["#src-1", "#src-2", "#src-1"]


def test_a_fail_quote_never_appears_in_any_format() -> None:
    from deepresearch.models import (
        Evidence,
        Paragraph,
        Report,
        Section,
        Sentence,
        SourceRef,
        Verification,
    )

    good = Evidence(
        id="e1",
        sub_question_id="q1",
        claim="c",
        quote="The verified words.",
        source_id="s1",
        source_url="https://a.example/x",
        start=0,
        end=19,
        verification=Verification(status="PASS", method="exact", score=1.0, start=0, end=19),
    )
    bad = good.model_copy(
        update={
            "id": "e2",
            "quote": "Words the source never said.",
            "verification": Verification(status="FAIL", method="fuzzy", score=0.2),
        }
    )
    report = Report(
        run_id="r",
        question="q",
        title="t",
        kind="synthesized",
        sections=[
            Section(
                heading="h",
                paragraphs=[
                    Paragraph(sentences=[Sentence(text="A claim.", citations=["e1", "e2"])])
                ],
            )
        ],
        sources=[
            SourceRef(id="s1", number=1, url="https://a.example/x", title="A", domain="a.example")
        ],
        evidence=[good, bad],
    )
    for fmt in ("md", "html", "json"):
        out = render(report, fmt)
        assert "never said" not in out, fmt
        assert "verified words" in out, fmt


def test_no_control_character_survives_rendering() -> None:
    hostile = "Insects\x00 \x07and \x1b]0;PWNED\x07\x1b[31mterminals\x1b[0m\u202e"
    report = make_report(
        title=hostile,
        sections=[
            Section(
                heading=hostile,
                paragraphs=[
                    Paragraph(sentences=[Sentence(text=f"{hostile} cooperate.", citations=["e2"])])
                ],
            )
        ],
        limitations=[hostile],
    )
    for fmt in ("md", "html"):
        text = render(report, fmt)
        assert "PWNED" not in text and "\x1b" not in text
        assert not [c for c in text if ord(c) < 32 and c not in "\n\t"], fmt
        assert "\u202e" not in text
    markdown = to_markdown(report)
    assert markdown.startswith("# Insects and terminals\n")


def _considered(url: str, domain: str, title: str) -> SourceScores:
    return SourceScores(
        url=url,
        domain=domain,
        title=title,
        source_type="other",
        extractability=1.0,
        query_relevance=1.0,
        query_multiplier=1.0,
        domain_authority=30,
        recency=0.5,
        retrieval_relevance=1.0,
        tier="SECONDARY",
        credibility=0.3,
        signal_score=0.5,
        final=0.5,
    )


def test_a_local_document_is_named_by_its_title_and_a_web_page_by_its_site() -> None:
    local = _considered("file:///docs/yield.md", "local corpus", 'The "yield"\n statement')
    web = _considered("https://example.org/a", "example.org", "Some page")
    untitled = _considered("file:///docs/x.md", "local corpus", "")
    assert considered_name(local) == 'The "yield" statement'
    assert considered_name(web) == "example.org"
    assert considered_name(untitled) == "local corpus"


def test_nothing_a_user_reads_names_the_seeds() -> None:
    ledger = ClaimLedger(job_confidence=0.5, claim_count=3, source_count=2)
    report = make_report(claims=ledger)
    for fmt in ("md", "html"):
        out = render(report, fmt)
        assert "Confidence 50%" in out
        assert not re.search(r"\bseed \d{3}", out, re.IGNORECASE)


def _with_table() -> Report:
    table = Table(
        columns=["Fact", "Kind", "In the source's words"],
        rows=[
            TableRow(cells=["many", "number", "Bees pollinate many | crops."], citations=["e1"]),
            TableRow(cells=["aphids", "name", HOSTILE], citations=["e2"]),
        ],
    )
    report = make_report()
    facts = Section(heading="Key facts", kind="key_facts", table=table)
    return report.model_copy(update={"sections": [facts, *report.sections]})


def test_a_table_renders_with_its_citations_in_every_format() -> None:
    report = _with_table()
    markdown = to_markdown(report)
    assert "| Fact | Kind | In the source's words | Source |" in markdown
    assert "| many | number | Bees pollinate many \\| crops. | [1] |" in markdown
    page = to_html(report)
    assert '<table class="report-table">' in page and "<script>" not in page
    assert 'href="#src-1"' in page.split('<table class="report-table">', 1)[1]
    assert Report.model_validate_json(to_json(report)).sections[0].table == report.sections[0].table


def test_a_strict_audit_takes_the_rows_of_the_evidence_it_removed() -> None:
    report = _with_table()
    # the summary cites e1 and e2; the body cites e3 and e1: removing the summary's second
    # sentence leaves e2 cited nowhere, so its row goes, and e1's row stays
    position = next(
        i for i, s in enumerate(numbered_sentences(report)) if s.citations[:1] == ["e2"]
    )
    audited = apply_audit(
        report, {position: ("unsupported", "no")}, policy="strict", method="judge", sources={}
    )
    table = audited.sections[0].table
    assert table is not None and [row.cells[0] for row in table.rows] == ["many"]
    assert audited.sections[0].kind == "key_facts"  # a table-only section is kept
