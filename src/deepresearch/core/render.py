"""Report rendering: markdown, HTML and JSON from the one Report model. Pure.

Inline citations are numbered by source (``[n]``), in order of first citation; the
"Sources" section lists each cited source with the verified quotes the text relies on,
so a reader can check every number against the words it stands for.

A report never loads anything and links only to its cited sources. In every text a model
or a page wrote (title, headings, sentences, quotes, reasons) control characters and
terminal sequences are removed, markdown images are removed, links keep their words and
lose their address, and a bare address that is not a cited source is removed
(``neutralize``); HTML escapes everything, and markdown escapes brackets and ``<`` so
nothing can become a link, an image or raw HTML. "Sources considered" links only the
sources that are cited.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Collection, Iterable

from deepresearch.core import render_eval
from deepresearch.core.budget import cost_text
from deepresearch.core.certainty import band
from deepresearch.core.provenance import url_key
from deepresearch.core.sanitize import strip_controls
from deepresearch.core.tiers import LOCAL_CORPUS
from deepresearch.models import Evidence, Report, Sentence, SourceRef, Table, TableRow
from deepresearch.models.scores import SourceScores
from deepresearch.models.thread import FollowupInfo

IMAGE_REMOVED = "(image removed)"
LINK_REMOVED = "(link removed)"

_MD_IMAGE = re.compile(r"!\[[^\]\n]*\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_MD_REF_DEF = re.compile(r"^\s*\[[^\]\n]+\]:\s*\S+.*$", re.M)
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto|javascript|data):[^>\s]*)>", re.I)
_BARE_URL = re.compile(
    r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>\[\]()\"'`]*[^\s<>\[\]()\"'`.,;:!?]", re.I
)


def neutralize(text: str, allowed: Collection[str] = ()) -> str:
    """``text`` without anything a renderer would load or link: images removed, links
    reduced to their words, bare addresses not in ``allowed`` (cited source URLs, compared
    by ``url_key``) replaced; control characters and terminal sequences removed."""
    text = _MD_IMAGE.sub(IMAGE_REMOVED, strip_controls(text))
    text = _MD_LINK.sub(lambda match: match.group(1), text)
    text = _MD_REF_DEF.sub("", text)
    text = _AUTOLINK.sub(lambda match: match.group(1), text)

    def bare(match: re.Match[str]) -> str:
        return match.group(0) if url_key(match.group(0)) in allowed else LINK_REMOVED

    return _BARE_URL.sub(bare, text)


def _allowed(report: Report) -> frozenset[str]:
    return frozenset(url_key(ref.url) for ref in report.sources)


def _md(text: str, allowed: Collection[str]) -> str:
    """Model or page text for markdown: neutralized, on one line, brackets and ``<``
    escaped so it cannot open a link, an image or raw HTML."""
    return _md_escape(_flat(neutralize(text, allowed)))


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
    ok = _allowed(report)
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
        quotes = _quotes_by_source(report)
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
        lines += render_eval.markdown(report.evaluation, lambda text: _md(text, ok))
    lines.append(_usage_line(report))
    return "\n".join(lines).rstrip() + "\n"


def _md_sentences(
    sentences: Iterable[Sentence], numbers: dict[str, int], allowed: Collection[str]
) -> str:
    parts = []
    for sentence in sentences:
        marks = "".join(f"[{n}]" for n in _marks(sentence, numbers))
        flag = _flag(sentence)
        parts.append(
            _md(sentence.text, allowed)
            + (f" {marks}" if marks else "")
            + (f" {flag.replace('<', '&lt;')}" if flag else "")
        )
    return " ".join(parts)


def considered_name(scores: SourceScores) -> str:
    """How a candidate is named in "Sources considered": a local document by its own title
    (its "domain" is only ``local corpus``), a web page by its site."""
    if scores.domain == LOCAL_CORPUS and scores.title.strip():
        return " ".join(strip_controls(scores.title).split())
    return scores.domain or scores.url


def header_lines(report: Report) -> list[str]:
    """A follow-up's place in its thread, then confidence and contradiction warnings for
    the top of a report (seed 003)."""
    thread = [followup_line(report.followup)] if report.followup is not None else []
    ledger = report.claims
    if ledger is None or not ledger.claim_count:
        return thread
    lines = [
        *thread,
        f"Confidence {ledger.job_confidence:.0%} ({ledger.certainty or band(ledger.job_confidence)}): "
        f"{ledger.claim_count} claim(s) from "
        f"{ledger.source_count} source(s), from the quality of the sources behind each "
        "claim, how many agree and how many disagree, and how many sources were used.",
    ]
    disputed = len(ledger.contradicted)
    if disputed:
        unconfirmed = sum(
            1
            for claim in ledger.contradicted
            if set(claim.contradiction_basis.values()) == {"model"}
        )
        lines.append(
            f"⚠ Sources disagree on {disputed} claim(s): see “Where sources disagree”."
            + (
                f" For {unconfirmed} of them only the model's reading finds the disagreement;"
                " the rule-based check does not confirm it."
                if unconfirmed
                else ""
            )
        )
    return lines


def followup_line(info: FollowupInfo) -> str:
    """What a follow-up's report says of its thread: the turn, and what it reused, or
    that it is on a new topic and was researched afresh."""
    head = f"Follow-up {info.turn} in thread {info.root} (after {info.follows})"
    if info.topic_shift:
        return f"{head}: a new topic, so it was researched afresh; nothing from earlier turns was reused."
    return (
        f"{head}: reused {info.reused_sources} page(s) and {info.reused_evidence} verified "
        "quote(s) from earlier turns, without fetching them again."
    )


def _flag(sentence: Sentence) -> str:
    """A visible mark for a sentence the audit did not find (fully) supported."""
    if sentence.audit in (None, "supported"):
        return ""
    label = {
        "partial": "partly supported",
        "unsupported": "not supported",
        "uncited": "no citation",
    }
    # the note is a model's words too: no links, and no brackets to close the mark early
    plain = neutralize(sentence.audit_note or "").replace("[", "(").replace("]", ")")
    note = f": {plain}" if plain else ""
    return f"⚠ [{label[sentence.audit]}{note}]"


def audit_line(report: Report) -> str | None:
    audit = report.audit
    if audit is None:
        return None
    checked = (
        f" Findings check: {audit.findings_checked} findings read against their quotes, "
        f"{audit.findings_partial} partly supported, {audit.findings_unsupported} unsupported "
        "and dropped before writing."
        if audit.findings_checked
        else ""
    )
    if audit.policy == "off" or audit.method == "none":
        return checked.strip() or None
    precision = (
        f", citation precision {audit.citation_precision:.0%}"
        if audit.citation_precision is not None
        else ""
    )
    return (
        f"Audit ({audit.policy}, {audit.method}): {audit.checked} sentences checked against their "
        f"sources: {audit.supported} supported, {audit.partial} partly, {audit.unsupported} not "
        f"supported; {audit.uncited_factual} factual without a citation; {audit.removed} removed{precision}."
        + checked
    )


def _flat(text: str) -> str:
    """Display form: line breaks inside a quote would break markdown's structure."""
    return " ".join(text.split())


def _md_escape(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]").replace("<", "&lt;")


def _md_url(url: str) -> str:
    """A source URL as a markdown link destination that cannot end early."""
    for char, code in (("(", "%28"), (")", "%29"), (" ", "%20"), ("<", "%3C"), (">", "%3E")):
        url = url.replace(char, code)
    return url.replace("|", "%7C")


def _usage_line(report: Report) -> str:
    usage = report.usage
    council = usage.by_stage.get("council")
    of_which = (
        f" (the council: {council.calls} calls, {council.input_tokens} input and "
        f"{council.output_tokens} output tokens)"
        if council is not None and council.calls
        else ""
    )
    return (
        f"_Run {report.run_id}: {len(report.sources)} sources cited, "
        f"{len(report.cited_evidence_ids())} verified quotes, {usage.calls} model calls, "
        f"{usage.input_tokens} input and {usage.output_tokens} output tokens, "
        f"{cost_text(usage.cost_usd, calls=usage.calls, unpriced_calls=usage.unpriced_calls)}"
        f"{of_which}._"
    )


def to_html(report: Report) -> str:
    numbers = citation_numbers(report)
    quotes = {item.id: item for item in report.evidence if item.verified}
    ok = _allowed(report)

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
        by_source = _quotes_by_source(report)
        for ref in report.sources:
            body.append(_html_source(ref, by_source.get(ref.id, []), ok))
        body.append("</ol>")
    if report.considered:
        body.append(_html_considered(report, ok))
    summary = audit_line(report)
    if summary:
        body.append(f'<p class="audit-summary">{esc(summary)}</p>')
    if report.evaluation is not None:
        body.append(render_eval.to_html(report.evaluation, lambda text: neutralize(text, ok)))
    body.append(f'<p class="usage">{esc(_usage_line(report).strip("_"))}</p>')
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
        for number in _marks(sentence, numbers):
            quote = next(
                (_flat(quotes[c].quote) for c in sentence.citations if numbers.get(c) == number), ""
            )
            quote = neutralize(quote, allowed)
            links.append(
                f'<a class="cite" href="#src-{number}" title="{html.escape(quote, quote=True)}">'
                f"[{number}]</a>"
            )
        flag = _flag(sentence)
        flagged = f' <mark class="audit">{html.escape(flag)}</mark>' if flag else ""
        parts.append(
            html.escape(_flat(neutralize(sentence.text, allowed)))
            + ("".join(links) if links else "")
            + flagged
        )
    return " ".join(parts)


def _md_table(table: Table, numbers: dict[str, int], allowed: Collection[str]) -> list[str]:
    """A table with a "Source" column of citation marks; a pipe in a cell cannot end it."""

    def cell(text: str) -> str:
        return _md(text, allowed).replace("|", "\\|")

    lines = [
        "| " + " | ".join(map(cell, [*table.columns, "Source"])) + " |",
        "|" + "---|" * (len(table.columns) + 1),
    ]
    for row in table.rows:
        cited = _row_sentence(row)
        marks = "".join(f"[{n}]" for n in _marks(cited, numbers))
        flag = _flag(cited)
        marks += f" {cell(flag)}" if flag else ""
        lines.append("| " + " | ".join([*map(cell, row.cells), marks]) + " |")
    return lines


def _html_table(
    table: Table, numbers: dict[str, int], quotes: dict[str, Evidence], allowed: Collection[str]
) -> str:
    def esc(text: str) -> str:
        return html.escape(_flat(neutralize(text, allowed)))

    head = "".join(f'<th scope="col">{esc(c)}</th>' for c in [*table.columns, "Source"])
    rows = []
    for row in table.rows:
        marks = _html_sentences([_row_sentence(row)], numbers, quotes, allowed)
        rows.append(
            "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row.cells) + f"<td>{marks}</td></tr>"
        )
    return f'<table class="report-table"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _row_sentence(row: TableRow) -> Sentence:
    """A table row's Source cell as a textless sentence: its citations and audit verdict."""
    return Sentence(text="", citations=row.citations, audit=row.audit, audit_note=row.audit_note)


def _html_source(ref: SourceRef, items: list[Evidence], allowed: Collection[str]) -> str:
    def esc(text: str) -> str:
        return html.escape(_flat(neutralize(text, allowed)))

    quotes = "".join(f"<blockquote>{esc(item.quote)}</blockquote>" for item in items)
    return (
        f'<li id="src-{ref.number}"><a href="{html.escape(ref.url, quote=True)}" '
        f'rel="noopener noreferrer">{esc(ref.title or ref.url)}</a> '
        f'<span class="domain">{esc(ref.domain)}</span>{quotes}</li>'
    )


def _md_considered(report: Report, allowed: Collection[str]) -> list[str]:
    """The sources considered, one row each: tier, signal, model, final score, decision.
    Only cited sources are links; the others show their address as code."""
    counts = considered_by_provider(report)
    several = len(counts) > 1
    lines = ["## Sources considered", ""]
    if several:
        lines += [_counts_line(counts), ""]
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


def considered_by_provider(report: Report) -> dict[str, int]:
    """How many of the sources considered each search provider returned (a source that
    several returned counts for each), by provider name."""
    counts: dict[str, int] = {}
    for s in report.considered:
        for name in s.providers:
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def _counts_line(counts: dict[str, int]) -> str:
    return "Found by: " + ", ".join(f"{name} {count}" for name, count in counts.items())


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
    summary = f'<p class="found-by">{esc(_counts_line(counts))}</p>' if several else ""
    return (
        f'<h2>Sources considered</h2>{summary}<div class="considered"><table>'
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
.report-table {{ border-collapse: collapse; margin: .5rem 0 1rem; }}
.report-table th, .report-table td {{ border-bottom: 1px solid #ddd; padding: .2rem .5rem; text-align: left; vertical-align: top; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""
