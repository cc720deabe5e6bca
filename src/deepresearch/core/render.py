"""Report rendering: markdown, HTML and JSON from the one Report model. Pure.

Inline citations are numbered by source (``[n]``), in order of first citation; the
"Sources" section lists each cited source with the verified quotes the text relies on,
so a reader can check every number against the words it stands for.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable

from deepresearch.models import Evidence, Report, Sentence, SourceRef


def citation_numbers(report: Report) -> dict[str, int]:
    """Evidence id -> source number ``n`` as shown in the text (verified evidence only)."""
    by_source = {ref.id: ref.number for ref in report.sources}
    out: dict[str, int] = {}
    for item in report.evidence:
        if item.source_id in by_source and item.verified:
            out[item.id] = by_source[item.source_id]
    return out


def _marks(sentence: Sentence, numbers: dict[str, int]) -> list[int]:
    seen: dict[int, None] = {}
    for cid in sentence.citations:
        if cid in numbers:
            seen.setdefault(numbers[cid], None)
    return sorted(seen)


def _quotes_by_source(report: Report) -> dict[str, list[Evidence]]:
    cited = set(report.cited_evidence_ids())
    out: dict[str, list[Evidence]] = {}
    for item in report.evidence:
        if item.id in cited and item.verified:  # a FAIL quote is never shown, whatever the input
            out.setdefault(item.source_id, []).append(item)
    return out


def to_markdown(report: Report) -> str:
    numbers = citation_numbers(report)
    lines = [f"# {report.title}", ""]
    if report.notice:
        lines += [f"> {report.notice}", ""]
    for line in header_lines(report):
        lines += [f"> {line}", ""]
    if report.summary:
        lines += [_md_sentences(report.summary, numbers), ""]
    for section in report.sections:
        lines += [f"## {section.heading}", ""]
        for paragraph in section.paragraphs:
            lines += [_md_sentences(paragraph.sentences, numbers), ""]
    if report.limitations:
        lines += ["## Limitations", ""] + [f"- {item}" for item in report.limitations] + [""]
    if report.suggestions:
        lines += ["## Suggestions", ""] + [f"- {item}" for item in report.suggestions] + [""]
    if report.sources:
        lines += ["## Sources", ""]
        quotes = _quotes_by_source(report)
        for ref in report.sources:
            lines.append(
                f"{ref.number}. [{_md_escape(ref.title or ref.url)}]({ref.url}) — {ref.domain}"
            )
            for item in quotes.get(ref.id, []):
                lines.append(f"   > “{_flat(item.quote)}”")
        lines.append("")
    if report.considered:
        lines += _md_considered(report)
    summary = audit_line(report)
    if summary:
        lines += [f"_{summary}_", ""]
    lines.append(_usage_line(report))
    return "\n".join(lines).rstrip() + "\n"


def _md_sentences(sentences: Iterable[Sentence], numbers: dict[str, int]) -> str:
    parts = []
    for sentence in sentences:
        marks = "".join(f"[{n}]" for n in _marks(sentence, numbers))
        flag = _flag(sentence)
        parts.append(
            _flat(sentence.text) + (f" {marks}" if marks else "") + (f" {flag}" if flag else "")
        )
    return " ".join(parts)


def header_lines(report: Report) -> list[str]:
    """Confidence and contradiction warnings for the top of a report (seed 003)."""
    ledger = report.claims
    if ledger is None or not ledger.claim_count:
        return []
    lines = [
        f"Confidence {ledger.job_confidence:.0%}: {ledger.claim_count} claim(s) from "
        f"{ledger.source_count} source(s), scored by seed 003's formulas."
    ]
    disputed = len(ledger.contradicted)
    if disputed:
        lines.append(f"⚠ Sources disagree on {disputed} claim(s): see “Where sources disagree”.")
    return lines


def _flag(sentence: Sentence) -> str:
    """A visible mark for a sentence the audit did not find (fully) supported."""
    if sentence.audit in (None, "supported"):
        return ""
    label = {
        "partial": "partly supported",
        "unsupported": "not supported",
        "uncited": "no citation",
    }
    note = f": {sentence.audit_note}" if sentence.audit_note else ""
    return f"⚠ [{label[sentence.audit]}{note}]"


def audit_line(report: Report) -> str | None:
    audit = report.audit
    if audit is None or audit.policy == "off" or audit.method == "none":
        return None
    precision = (
        f", citation precision {audit.citation_precision:.0%}"
        if audit.citation_precision is not None
        else ""
    )
    return (
        f"Audit ({audit.policy}, {audit.method}): {audit.checked} sentences checked against their "
        f"sources: {audit.supported} supported, {audit.partial} partly, {audit.unsupported} not "
        f"supported; {audit.uncited_factual} factual without a citation; {audit.removed} removed{precision}."
    )


def _flat(text: str) -> str:
    """Display form: line breaks inside a quote would break markdown's structure."""
    return " ".join(text.split())


def _md_escape(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]")


def _usage_line(report: Report) -> str:
    usage = report.usage
    return (
        f"_Run {report.run_id}: {len(report.sources)} sources cited, "
        f"{len(report.cited_evidence_ids())} verified quotes, {usage.calls} model calls, "
        f"{usage.input_tokens} input and {usage.output_tokens} output tokens._"
    )


def to_html(report: Report) -> str:
    numbers = citation_numbers(report)
    quotes = {item.id: item for item in report.evidence if item.verified}
    esc = html.escape
    body = [f"<h1>{esc(report.title)}</h1>"]
    if report.notice:
        body.append(f'<p class="notice">{esc(report.notice)}</p>')
    body += [f'<p class="confidence">{esc(line)}</p>' for line in header_lines(report)]
    if report.summary:
        body.append(f'<p class="summary">{_html_sentences(report.summary, numbers, quotes)}</p>')
    for section in report.sections:
        body.append(f"<h2>{esc(section.heading)}</h2>")
        for paragraph in section.paragraphs:
            body.append(f"<p>{_html_sentences(paragraph.sentences, numbers, quotes)}</p>")
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
        by_source = _quotes_by_source(report)
        for ref in report.sources:
            body.append(_html_source(ref, by_source.get(ref.id, [])))
        body.append("</ol>")
    if report.considered:
        body.append(_html_considered(report))
    summary = audit_line(report)
    if summary:
        body.append(f'<p class="audit-summary">{esc(summary)}</p>')
    body.append(f'<p class="usage">{esc(_usage_line(report).strip("_"))}</p>')
    return _PAGE.format(title=esc(report.title), body="\n".join(body))


def _html_sentences(
    sentences: Iterable[Sentence], numbers: dict[str, int], quotes: dict[str, Evidence]
) -> str:
    parts = []
    for sentence in sentences:
        links = []
        for number in _marks(sentence, numbers):
            quote = next(
                (_flat(quotes[c].quote) for c in sentence.citations if numbers.get(c) == number), ""
            )
            links.append(
                f'<a class="cite" href="#src-{number}" title="{html.escape(quote, quote=True)}">'
                f"[{number}]</a>"
            )
        flag = _flag(sentence)
        flagged = f' <mark class="audit">{html.escape(flag)}</mark>' if flag else ""
        parts.append(
            html.escape(_flat(sentence.text)) + ("".join(links) if links else "") + flagged
        )
    return " ".join(parts)


def _html_source(ref: SourceRef, items: list[Evidence]) -> str:
    esc = html.escape
    quotes = "".join(f"<blockquote>{esc(_flat(item.quote))}</blockquote>" for item in items)
    return (
        f'<li id="src-{ref.number}"><a href="{esc(ref.url, quote=True)}" rel="noopener noreferrer">'
        f'{esc(ref.title or ref.url)}</a> <span class="domain">{esc(ref.domain)}</span>{quotes}</li>'
    )


def _md_considered(report: Report) -> list[str]:
    """The sources considered, one row each: tier, signal, model, final score, decision."""
    lines = [
        "## Sources considered",
        "",
        "| source | tier | signal | model | final | decision |",
        "|---|---|---|---|---|---|",
    ]
    for s in report.considered:
        model = "–" if s.model_score is None else f"{s.model_score:.2f}"
        reason = s.reason.replace("|", "/")
        lines.append(
            f"| [{_md_escape(s.domain or s.url)}]({s.url}) | {s.tier} | {s.signal_score:.2f} "
            f"| {model} | {s.final:.2f} | {reason} |"
        )
    return [*lines, ""]


def _html_considered(report: Report) -> str:
    """Every candidate source with each ranking dimension and why it was read or dropped."""
    esc = html.escape

    def num(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    rows = []
    for s in report.considered:
        rows.append(
            "<tr>"
            f'<td><a href="{esc(s.url, quote=True)}" rel="noopener noreferrer">{esc(s.domain or s.url)}</a></td>'
            f"<td>{esc(s.tier)}</td><td>{esc(s.source_type)}</td>"
            f"<td>{s.domain_authority}</td><td>{num(s.recency)}</td><td>{num(s.retrieval_relevance)}</td>"
            f"<td>{num(s.credibility)}</td><td>{num(s.signal_score)}</td><td>{num(s.model_score)}</td>"
            f"<td>{num(s.extractability)}</td><td>{num(s.query_multiplier)}</td>"
            f"<td><strong>{num(s.final)}</strong></td><td>{esc(s.reason)}</td>"
            "</tr>"
        )
    head = (
        "<tr><th>source</th><th>tier</th><th>type</th><th>authority</th><th>recency</th>"
        "<th>retrieval</th><th>credibility</th><th>signal</th><th>model</th>"
        "<th>extractability</th><th>query ×</th><th>final</th><th>decision</th></tr>"
    )
    return (
        '<h2>Sources considered</h2><div class="considered"><table>'
        f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def to_json(report: Report) -> str:
    """The Report model as JSON, plus ``markdown``: the same report as readable text.
    Evidence that did not pass verification is left out."""
    data = report.model_dump(mode="json")
    data["evidence"] = [
        item for item, keep in zip(data["evidence"], report.evidence, strict=True) if keep.verified
    ]
    data["markdown"] = to_markdown(report)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render(report: Report, fmt: str) -> str:
    if fmt == "md":
        return to_markdown(report)
    if fmt == "html":
        return to_html(report)
    if fmt == "json":
        return to_json(report)
    raise ValueError(f"unknown report format {fmt!r}")


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
</style>
</head>
<body>
{body}
</body>
</html>
"""
