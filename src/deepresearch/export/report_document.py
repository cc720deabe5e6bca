"""A research Report as the page-neutral ``models.document.Document`` every export draws
(``report_document``): the markdown (``export.markdown``), the PDF and the DOCX. Pure.

It carries what the markdown shows, in the same order and by the same rules (the
report's words in ``export.report_text``): model and page text is neutralized (no images,
links reduced to their words, no address that is not a cited source), and the only links
are to cited sources. A citation ``[n]`` links to the cited source's URL.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from deepresearch.core.provenance import url_key
from deepresearch.export.report_evaluation import DIMENSION_NAMES, HEADING, figures, judge_line
from deepresearch.export.report_text import (
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
from deepresearch.models import EvalResult, Report, Sentence
from deepresearch.models import Table as ReportTable
from deepresearch.models.document import (
    Block,
    Document,
    Heading,
    ItemList,
    Paragraph,
    ParagraphStyle,
    Source,
    SourceList,
    Span,
    Table,
)


def report_document(report: Report) -> Document:
    """The report as a Document: its words, in the order every format shows them."""
    numbers = citation_numbers(report)
    allowed = frozenset(url_key(ref.url) for ref in report.sources)
    urls = {ref.number: ref.url for ref in report.sources}

    def clean(text: str) -> str:
        return flat(neutralize(text, allowed))

    blocks: list[Block] = [Heading(1, clean(report.title))]
    if report.notice:
        blocks.append(Paragraph((Span(clean(report.notice)),), "notice"))
    blocks += [Paragraph((Span(line, own=True),), "notice") for line in header_lines(report)]
    if report.summary:
        blocks.append(Paragraph(_sentences(report.summary, numbers, urls, allowed)))
    for section in report.sections:
        blocks.append(Heading(2, clean(section.heading)))
        style: ParagraphStyle = "quote" if section.kind == "verified_findings" else "body"
        if section.layout == "list" and section.paragraphs:  # each paragraph is one item
            entries = (_sentences(p.sentences, numbers, urls, allowed) for p in section.paragraphs)
            blocks.append(ItemList(tuple(entries)))
        else:
            for paragraph in section.paragraphs:
                spans = _sentences(paragraph.sentences, numbers, urls, allowed)
                blocks.append(Paragraph(spans, style))
        if section.table is not None:
            blocks.append(_table(section.table, numbers, urls, clean))
    for heading, items in (
        ("Limitations", report.limitations),
        ("Suggestions", report.suggestions),
    ):
        if items:
            blocks.append(Heading(2, heading))
            blocks.append(ItemList(tuple((Span(clean(item)),) for item in items)))
    if report.sources:
        quotes = quotes_by_source(report)
        listed = (
            Source(
                ref.number,
                clean(ref.title or ref.url),
                ref.url,
                clean(ref.domain),
                tuple(clean(item.quote) for item in quotes.get(ref.id, [])),
            )
            for ref in report.sources
        )
        blocks += [Heading(2, "Sources"), SourceList(tuple(listed))]
    if report.considered:
        blocks += _considered(report, allowed)
    summary = audit_line(report)
    if summary:
        blocks.append(Paragraph((Span(summary, italic=True, own=True),), "note"))
    if report.evaluation is not None:
        blocks += _evaluation(report.evaluation, clean)
    usage = Span(usage_line(report).strip("_"), italic=True, own=True)
    blocks.append(Paragraph((usage,), "note"))
    return Document(
        title=clean(report.title),
        blocks=tuple(blocks),
        subject=clean(report.question),
        created=report.created_at,
    )


def _sentences(
    sentences: Iterable[Sentence],
    numbers: dict[str, int],
    urls: dict[int, str],
    allowed: Collection[str],
) -> tuple[Span, ...]:
    spans: list[Span] = []
    for sentence in sentences:
        if spans:
            spans.append(Span(" "))
        spans.append(Span(flat(neutralize(sentence.text, allowed))))
        marks = cite_marks(sentence, numbers)
        if marks:
            spans.append(Span(" "))
        spans += [Span(f"[{n}]", url=urls.get(n), cite=n) for n in marks]
        flag = audit_flag(sentence)
        if flag:
            spans += [Span(" "), Span(flag, mark=True)]
    return tuple(spans)


def _considered(report: Report, allowed: Collection[str]) -> list[Block]:
    """The table of every candidate source, as in the markdown report; only cited sources
    link, the others show their address as text."""
    counts = considered_by_provider(report)
    several = len(counts) > 1
    blocks: list[Block] = [Heading(2, "Sources considered")]
    if several:
        blocks.append(Paragraph((Span(counts_line(counts), own=True),), "note"))
    header = ("source", *(("found by",) if several else ()), "tier", "signal", "model", "final")
    header += ("decision",)
    widths = (0.3, *((0.1,) if several else ()), 0.12, 0.07, 0.07, 0.07)
    widths += (1.0 - sum(widths),)
    rows = []
    for s in report.considered:
        name = flat(neutralize(considered_name(s), allowed))
        cited = url_key(s.url) in allowed
        where = (
            (Span(name, url=s.url),) if cited else (Span(name), Span(" "), Span(s.url, code=True))
        )
        model = "–" if s.model_score is None else f"{s.model_score:.2f}"
        cells = [where]
        if several:
            cells.append((Span(flat(neutralize(", ".join(s.providers), allowed))),))
        cells += [
            (Span(s.tier, own=True),),
            (Span(f"{s.signal_score:.2f}", own=True),),
            (Span(model, own=True),),
            (Span(f"{s.final:.2f}", bold=True, own=True),),
            (Span(flat(neutralize(s.reason, allowed))),),
        ]
        rows.append(tuple(cells))
    blocks.append(Table(header, tuple(rows), widths, "considered"))
    return blocks


def _evaluation(result: EvalResult, clean: Callable[[str], str]) -> list[Block]:
    """The "Evaluation" section, as ``export.report_evaluation`` draws it in markdown and HTML:
    the figures, the judge's overall line, and its scores with reasons as a table (the
    reasons are a model's words, so ``clean`` neutralizes them)."""
    blocks: list[Block] = [
        Heading(2, HEADING),
        ItemList(tuple((Span(line, own=True),) for line in figures(result))),
    ]
    judged = judge_line(result)
    if judged:
        blocks.append(Paragraph((Span(clean(judged)),)))
    if result.scores:
        rows = tuple(
            (
                (Span(DIMENSION_NAMES[score.dimension], own=True),),
                (Span(f"{score.score:.1f}", bold=True, own=True),),
                (Span(clean(score.reason)),),
            )
            for score in result.scores
        )
        header = ("dimension", "score", "reason")
        blocks.append(Table(header, rows, (0.22, 0.1, 0.68), "evaluation"))
    return blocks


def _table(
    table: ReportTable, numbers: dict[str, int], urls: dict[int, str], clean: Callable[[str], str]
) -> Table:
    """A report's table (key facts, or a planned table, timeline or comparison) with a
    "Source" column of citation marks (and the audit's flag on a row), as the
    markdown and HTML draw it."""
    rows = []
    for row in table.rows:
        cited = row_sentence(row)
        flag = audit_flag(cited)
        source = tuple(Span(f"[{n}]", url=urls.get(n), cite=n) for n in cite_marks(cited, numbers))
        source += (Span(" "), Span(flag, mark=True)) if flag else ()
        rows.append((*((Span(clean(cell)),) for cell in row.cells), source))
    share = 0.88 / max(1, len(table.columns))
    widths = (*(share for _ in table.columns), 0.12)
    return Table((*map(clean, table.columns), "Source"), tuple(rows), widths)
