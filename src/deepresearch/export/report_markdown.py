"""A research report as markdown. Pure.

What it shows and how model and page text is made safe are the report's words
(``export.report_text``); here that text is also put on one line and brackets and ``<``
are escaped, so nothing can become a link, an image or raw HTML. "Sources considered"
links only the sources that are cited.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from deepresearch.core.provenance import url_key
from deepresearch.export.report_evaluation import evaluation_markdown
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
from deepresearch.models import Report, Sentence, Table


def _md(text: str, allowed: Collection[str]) -> str:
    """Model or page text for markdown: neutralized, on one line, brackets and ``<``
    escaped so it cannot open a link, an image or raw HTML."""
    return _md_escape(flat(neutralize(text, allowed)))


def to_markdown(report: Report) -> str:
    numbers = citation_numbers(report)
    ok = allowed_urls(report)
    lines = [f"# {_md(report.title, ok)}", ""]
    if report.notice:
        lines += [f"> {_md(report.notice, ok)}", ""]
    for line in header_lines(report):
        lines += [f"> {line}", ""]
    if report.summary:
        lines += [_md_sentences(report.summary, numbers, ok), ""]
    for section in report.sections:
        lines += [f"## {_md(section.heading, ok)}", ""]
        if section.layout == "list":  # each paragraph is one item
            lines += [f"- {_md_sentences(p.sentences, numbers, ok)}" for p in section.paragraphs]
            lines += [""] if section.paragraphs else []
        else:
            for paragraph in section.paragraphs:
                lines += [_md_sentences(paragraph.sentences, numbers, ok), ""]
        if section.table is not None:
            lines += [*_md_table(section.table, numbers, ok), ""]
    for heading, items in (
        ("Limitations", report.limitations),
        ("Suggestions", report.suggestions),
    ):
        if items:
            lines += [f"## {heading}", ""] + [f"- {_md(item, ok)}" for item in items] + [""]
    if report.sources:
        lines += ["## Sources", ""]
        quotes = quotes_by_source(report)
        for ref in report.sources:
            lines.append(
                f"{ref.number}. [{_md(ref.title or ref.url, ok)}]({_md_url(ref.url)}) — "
                f"{_md(ref.domain, ok)}"
            )
            for item in quotes.get(ref.id, []):
                lines.append(f"   > “{_md(item.quote, ok)}”")
        lines.append("")
    if report.considered:
        lines += _md_considered(report, ok)
    summary = audit_line(report)
    if summary:
        lines += [f"_{summary}_", ""]
    if report.evaluation is not None:
        lines += evaluation_markdown(report.evaluation, lambda text: _md(text, ok))
    lines.append(usage_line(report))
    return "\n".join(lines).rstrip() + "\n"


def _md_sentences(
    sentences: Iterable[Sentence], numbers: dict[str, int], allowed: Collection[str]
) -> str:
    parts = []
    for sentence in sentences:
        marks = "".join(f"[{n}]" for n in cite_marks(sentence, numbers))
        flag = audit_flag(sentence)
        parts.append(
            _md(sentence.text, allowed)
            + (f" {marks}" if marks else "")
            + (f" {flag.replace('<', '&lt;')}" if flag else "")
        )
    return " ".join(parts)


def _md_escape(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]").replace("<", "&lt;")


def _md_url(url: str) -> str:
    """A source URL as a markdown link destination that cannot end early."""
    for char, code in (("(", "%28"), (")", "%29"), (" ", "%20"), ("<", "%3C"), (">", "%3E")):
        url = url.replace(char, code)
    return url.replace("|", "%7C")


def _md_table(table: Table, numbers: dict[str, int], allowed: Collection[str]) -> list[str]:
    """A table with a "Source" column of citation marks; a pipe in a cell cannot end it."""

    def cell(text: str) -> str:
        return _md(text, allowed).replace("|", "\\|")

    lines = [
        "| " + " | ".join(map(cell, [*table.columns, "Source"])) + " |",
        "|" + "---|" * (len(table.columns) + 1),
    ]
    for row in table.rows:
        cited = row_sentence(row)
        marks = "".join(f"[{n}]" for n in cite_marks(cited, numbers))
        flag = audit_flag(cited)
        marks += f" {cell(flag)}" if flag else ""
        lines.append("| " + " | ".join([*map(cell, row.cells), marks]) + " |")
    return lines


def _md_considered(report: Report, allowed: Collection[str]) -> list[str]:
    """The sources considered, one row each: tier, signal, model, final score, decision.
    Only cited sources are links; the others show their address as code."""
    counts = considered_by_provider(report)
    several = len(counts) > 1
    lines = ["## Sources considered", ""]
    if several:
        lines += [counts_line(counts), ""]
    lines += [
        "| source |"
        + (" found by |" if several else "")
        + " tier | signal | model | final | decision |",
        "|---|" + ("---|" if several else "") + "---|---|---|---|---|",
    ]
    for s in report.considered:
        model = "–" if s.model_score is None else f"{s.model_score:.2f}"
        reason = _md(s.reason, allowed).replace("|", "/")
        name = _md(considered_name(s), allowed).replace("|", "/")
        if url_key(s.url) in allowed:
            where = f"[{name}]({_md_url(s.url)})"
        else:
            where = f"{name} `{s.url.replace('`', '%60').replace('|', '%7C')}`"
        found = f" {_md(', '.join(s.providers), allowed).replace('|', '/')} |" if several else ""
        lines.append(
            f"| {where} |{found} {s.tier} | {s.signal_score:.2f} | {model} | {s.final:.2f} | {reason} |"
        )
    return [*lines, ""]
