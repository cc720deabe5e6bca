"""A research report as one HTML page. Pure.

What it shows and how model and page text is made safe are the report's words
(``export.report_text``); here everything is also HTML-escaped. A citation ``[n]`` jumps
to its source in the list and shows the quote it stands for; only cited sources are
links.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Iterable

from deepresearch.core.provenance import url_key
from deepresearch.export.report_evaluation import evaluation_html
from deepresearch.export.report_text import (
    allowed_urls,
    audit_flag,
    audit_line,
    citation_numbers,
    cite_marks,
    considered_by_provider,
    considered_name,
    counts_line,
    flat,
    header_lines,
    neutralize,
    quotes_by_source,
    row_sentence,
    usage_line,
)
from deepresearch.models import Evidence, Report, Sentence, SourceRef, Table


def to_html(report: Report) -> str:
    numbers = citation_numbers(report)
    quotes = {item.id: item for item in report.evidence if item.verified}
    ok = allowed_urls(report)

    def esc(text: str) -> str:
        return html.escape(neutralize(text, ok))

    body = [f"<h1>{esc(report.title)}</h1>"]
    if report.notice:
        body.append(f'<p class="notice">{esc(report.notice)}</p>')
    body += [f'<p class="confidence">{esc(line)}</p>' for line in header_lines(report)]
    if report.summary:
        body.append(
            f'<p class="summary">{_html_sentences(report.summary, numbers, quotes, ok)}</p>'
        )
    for section in report.sections:
        body.append(f"<h2>{esc(section.heading)}</h2>")
        if section.layout == "list" and section.paragraphs:  # each paragraph is one item
            body.append('<ul class="report-list">')
            body += [
                f"<li>{_html_sentences(p.sentences, numbers, quotes, ok)}</li>"
                for p in section.paragraphs
            ]
            body.append("</ul>")
        else:
            for paragraph in section.paragraphs:
                body.append(f"<p>{_html_sentences(paragraph.sentences, numbers, quotes, ok)}</p>")
        if section.table is not None:
            body.append(_html_table(section.table, numbers, quotes, ok))
    for heading, items in (
        ("Limitations", report.limitations),
        ("Suggestions", report.suggestions),
    ):
        if items:
            body.append(f"<h2>{heading}</h2><ul>")
            body += [f"<li>{esc(item)}</li>" for item in items]
            body.append("</ul>")
    if report.sources:
        body.append('<h2>Sources</h2><ol class="sources">')
        by_source = quotes_by_source(report)
        for ref in report.sources:
            body.append(_html_source(ref, by_source.get(ref.id, []), ok))
        body.append("</ol>")
    if report.considered:
        body.append(_html_considered(report, ok))
    summary = audit_line(report)
    if summary:
        body.append(f'<p class="audit-summary">{esc(summary)}</p>')
    if report.evaluation is not None:
        body.append(evaluation_html(report.evaluation, lambda text: neutralize(text, ok)))
    body.append(f'<p class="usage">{esc(usage_line(report).strip("_"))}</p>')
    return _PAGE.format(title=esc(report.title), body="\n".join(body))


def _html_sentences(
    sentences: Iterable[Sentence],
    numbers: dict[str, int],
    quotes: dict[str, Evidence],
    allowed: Collection[str],
) -> str:
    parts = []
    for sentence in sentences:
        links = []
        for number in cite_marks(sentence, numbers):
            quote = next(
                (flat(quotes[c].quote) for c in sentence.citations if numbers.get(c) == number), ""
            )
            quote = neutralize(quote, allowed)
            links.append(
                f'<a class="cite" href="#src-{number}" title="{html.escape(quote, quote=True)}">'
                f"[{number}]</a>"
            )
        flag = audit_flag(sentence)
        flagged = f' <mark class="audit">{html.escape(flag)}</mark>' if flag else ""
        parts.append(
            html.escape(flat(neutralize(sentence.text, allowed)))
            + ("".join(links) if links else "")
            + flagged
        )
    return " ".join(parts)


def _html_table(
    table: Table, numbers: dict[str, int], quotes: dict[str, Evidence], allowed: Collection[str]
) -> str:
    def esc(text: str) -> str:
        return html.escape(flat(neutralize(text, allowed)))

    head = "".join(f'<th scope="col">{esc(c)}</th>' for c in [*table.columns, "Source"])
    rows = []
    for row in table.rows:
        marks = _html_sentences([row_sentence(row)], numbers, quotes, allowed)
        rows.append(
            "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row.cells) + f"<td>{marks}</td></tr>"
        )
    return f'<table class="report-table"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _html_source(ref: SourceRef, items: list[Evidence], allowed: Collection[str]) -> str:
    def esc(text: str) -> str:
        return html.escape(flat(neutralize(text, allowed)))

    quotes = "".join(f"<blockquote>{esc(item.quote)}</blockquote>" for item in items)
    return (
        f'<li id="src-{ref.number}"><a href="{html.escape(ref.url, quote=True)}" '
        f'rel="noopener noreferrer">{esc(ref.title or ref.url)}</a> '
        f'<span class="domain">{esc(ref.domain)}</span>{quotes}</li>'
    )


def _html_considered(report: Report, allowed: Collection[str]) -> str:
    """Every candidate source with each ranking dimension and why it was read or dropped.
    Only cited sources are links; the others show their address as text."""

    def esc(text: str, *, quote: bool = True) -> str:
        return html.escape(neutralize(text, allowed), quote=quote)

    def num(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    counts = considered_by_provider(report)
    several = len(counts) > 1
    rows = []
    for s in report.considered:
        name = esc(considered_name(s))
        if url_key(s.url) in allowed:
            where = (
                f'<a href="{html.escape(s.url, quote=True)}" rel="noopener noreferrer">{name}</a>'
            )
        else:
            where = f'{name} <code class="url">{html.escape(s.url)}</code>'
        rows.append(
            "<tr>"
            f"<td>{where}</td>"
            + (f'<td class="providers">{esc(", ".join(s.providers))}</td>' if several else "")
            + f"<td>{esc(s.tier)}</td><td>{esc(s.source_type)}</td>"
            f"<td>{s.domain_authority}</td><td>{num(s.recency)}</td><td>{num(s.retrieval_relevance)}</td>"
            f"<td>{num(s.credibility)}</td><td>{num(s.signal_score)}</td><td>{num(s.model_score)}</td>"
            f"<td>{num(s.extractability)}</td><td>{num(s.query_multiplier)}</td>"
            f"<td><strong>{num(s.final)}</strong></td><td>{esc(s.reason)}</td>"
            "</tr>"
        )
    head = (
        "<tr><th>source</th>"
        + ("<th>found by</th>" if several else "")
        + "<th>tier</th><th>type</th><th>authority</th><th>recency</th>"
        "<th>retrieval</th><th>credibility</th><th>signal</th><th>model</th>"
        "<th>extractability</th><th>query ×</th><th>final</th><th>decision</th></tr>"
    )
    summary = f'<p class="found-by">{esc(counts_line(counts))}</p>' if several else ""
    return (
        f'<h2>Sources considered</h2>{summary}<div class="considered"><table>'
        f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font: 16px/1.6 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }}
.notice {{ background: #fff4d6; border-left: 4px solid #c98a00; padding: .5rem 1rem; }}
a.cite {{ text-decoration: none; font-size: .8em; vertical-align: super; color: #0645ad; }}
blockquote {{ margin: .25rem 0 .5rem 1rem; color: #444; border-left: 3px solid #ccc; padding-left: .75rem; }}
.domain, .usage {{ color: #555; font-size: .9em; }}
.considered {{ overflow-x: auto; }}
.considered table {{ border-collapse: collapse; font-size: .8em; }}
.considered th, .considered td {{ border-bottom: 1px solid #ddd; padding: .2rem .4rem; text-align: left; }}
.report-table {{ border-collapse: collapse; margin: .5rem 0 1rem; }}
.report-table th, .report-table td {{ border-bottom: 1px solid #ddd; padding: .2rem .5rem; text-align: left; vertical-align: top; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""
