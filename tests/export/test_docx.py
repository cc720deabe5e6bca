"""DOCX export: the file opens (python-docx), carries the verified quotes, makes each
citation a hyperlink to its source, keeps the sources-considered table as a table, and
stores any Unicode text."""

from __future__ import annotations

import io
import re

import docx

from deepresearch.export import export_report
from deepresearch.export.report_evaluation import figures, judge_line
from deepresearch.export.report_text import citation_numbers
from deepresearch.models import ClaimLedger, DimensionScore, EvalResult, Report

from ..core.test_render import _considered, _with_table, make_report
from .reading import docx_links, docx_tables, docx_text, flat
from .test_pdf import cited_quotes


def test_the_docx_carries_every_cited_quote_in_any_script(bee_report: Report) -> None:
    data = export_report(bee_report, "docx")
    text = docx_text(data)
    quotes = cited_quotes(bee_report)
    assert any("蜜蜂" in quote for quote in quotes)  # Chinese, kept as it is
    for quote in quotes:
        assert quote in text
    document = docx.Document(io.BytesIO(data))
    assert document.core_properties.title == flat(bee_report.title)
    headings = [
        p.text for p in document.paragraphs if p.style.name.startswith(("Heading", "Title"))
    ]
    assert headings[0] == flat(bee_report.title)
    assert {"Sources", "Sources considered"} <= set(headings)


def test_citations_are_hyperlinks_to_the_cited_source(bee_report: Report) -> None:
    links = docx_links(export_report(bee_report, "docx"))
    urls = {ref.number: ref.url for ref in bee_report.sources}
    numbers = citation_numbers(bee_report)
    marks = [(text, url) for text, url in links if text.startswith("[")]
    expected = {
        (f"[{numbers[c]}]", urls[numbers[c]])
        for sentence in bee_report.all_sentences()
        for c in sentence.citations
        if c in numbers
    }
    assert expected and set(marks) == expected
    # the sources list links each title; nothing links anywhere else
    assert {url for _, url in links} == set(urls.values())
    for ref in bee_report.sources:
        assert (flat(ref.title), ref.url) in links


def test_the_sources_considered_table_is_a_table(bee_report: Report) -> None:
    data = export_report(bee_report, "docx")
    (table,) = docx_tables(data)
    assert table[0] == ["source", "tier", "signal", "model", "final", "decision"]
    assert len(table) == 1 + len(bee_report.considered)
    cited = {ref.url for ref in bee_report.sources}
    for row, scores in zip(table[1:], bee_report.considered, strict=True):
        assert row[4] == f"{scores.final:.2f}" and row[5] == scores.reason
        assert row[1] == scores.tier
        # an uncited source shows its address as text, never as a link
        if scores.url not in cited:
            assert scores.url in row[0]
    assert not {url for _, url in docx_links(data)} - cited


def test_text_xml_cannot_carry_is_dropped_not_fatal() -> None:
    # a terminal sequence goes whole, as in every rendering (core.sanitize)
    report = make_report(title="Bees\x00 and \x1b[31mants\ufffe")
    report.summary[0].text = "Bees\x07 pollinate crops."
    text = docx_text(export_report(report, "docx"))
    assert "Bees and ants" in text and "Bees pollinate crops. [1]" in text


def test_an_evaluated_report_carries_its_evaluation_like_the_markdown() -> None:
    # evaluated after it was written (POST .../eval, deepresearch eval): the DOCX shows the
    # figures, the judge's line and its scores as a table, and a reason's link is words only
    report = make_report()
    report.evaluation = EvalResult(
        run_id=report.run_id,
        citation_precision=0.75,
        citation_recall=0.5,
        coverage=1.0,
        cited_sentences=4,
        supported_cited=3,
        factual_sentences=6,
        factual_supported=3,
        sub_questions=2,
        covered=["q1", "q2"],
        scores=[
            DimensionScore(
                dimension="insight", score=6.5, reason="See [this](https://evil.example/x)."
            ),
            DimensionScore(dimension="readability", score=8.0, reason="Clear."),
        ],
        overall=7.25,
        judge_model="scripted:judge",
    )
    data = export_report(report, "docx")
    text = docx_text(data)
    for line in figures(report.evaluation):
        assert flat(line) in text
    assert judge_line(report.evaluation) in text
    assert "Evaluation" in [p.text for p in docx.Document(io.BytesIO(data)).paragraphs]
    scores = docx_tables(data)[-1]
    assert scores[0] == ["dimension", "score", "reason"]
    assert scores[1][:2] == ["Insight", "6.5"] and scores[2] == ["Readability", "8.0", "Clear."]
    assert "evil.example" not in {url for _, url in docx_links(data)}
    assert "See this" in scores[1][2]


def test_a_local_document_is_named_by_its_title_and_no_seed_is_named() -> None:
    # as in the markdown and HTML (export.markdown, export.html): the considered table names a local
    # document by its title, and the confidence line says what it is built from
    local = _considered("file:///docs/yield.md", "local corpus", 'The "yield"\n statement')
    report = make_report(claims=ClaimLedger(job_confidence=0.5, claim_count=3, source_count=2))
    report.considered = [local]
    data = export_report(report, "docx")
    (table,) = docx_tables(data)
    assert table[1][0].startswith('The "yield" statement')
    text = docx_text(data)
    assert "Confidence 50%" in text and not re.search(r"\bseed \d{3}", text, re.IGNORECASE)


def test_the_key_facts_table_is_a_table_whose_source_links_to_the_source() -> None:
    report = _with_table()
    data = export_report(report, "docx")
    facts = docx_tables(data)[0]
    assert facts[0] == ["Fact", "Kind", "In the source's words", "Source"]
    assert facts[1] == ["many", "number", "Bees pollinate many | crops.", "[1]"]
    assert facts[2][2] == '<script>alert("x")</script>'  # text, never markup
    urls = {ref.number: ref.url for ref in report.sources}
    assert ("[1]", urls[1]) in docx_links(data) and ("[2]", urls[2]) in docx_links(data)
