"""A research Report as the page-neutral ``models.document.Document`` every export draws
(``report_document``): markdown (``export.markdown``), HTML (``export.html``), PDF and
DOCX. Pure. A figure from a cited page (``Report.figures``) follows its section's text
as an image block, captioned with the page's own words and cited as its source.

It carries what every format shows, in order, by the report's rules (its words in
``export.report_text``): model and page text is neutralized (no images, links reduced to
their words, no address that is not a cited source), and the only links are to cited
sources. A citation ``[n]`` links to the cited source's URL and holds the quote it stands
for; hints say what each piece is, and each renderer decides how it looks.
"""

from __future__ import annotations

import base64
from collections.abc import Collection, Iterable
from dataclasses import replace

from deepresearch.core.charts import Chart, chartable_evidence, section_chart
from deepresearch.core.provenance import url_key
from deepresearch.export.report_evaluation import DIMENSION_NAMES, HEADING, figures, judge_line
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
    source_detail,
    usage_line,
)
from deepresearch.models import EvalResult, Evidence, Report, Sentence, SourceRef
from deepresearch.models import Table as ReportTable
from deepresearch.models.document import (
    Block,
    Cell,
    Document,
    Heading,
    ImageBlock,
    ImageCitation,
    ItemList,
    Paragraph,
    ParagraphStyle,
    Source,
    SourceList,
    Span,
    Table,
)
from deepresearch.models.figures import ReportFigure
from deepresearch.models.scores import SourceScores


def report_document(report: Report) -> Document:
    """The report as a Document: its words, in the order every format shows them."""
    cites = _Cites(report)
    allowed = cites.allowed
    clean, text, own = cites.clean, cites.text, cites.own
    blocks: list[Block] = [Heading(1, clean(report.title), _full(report.title, allowed))]
    refs, placed = {ref.id: ref for ref in report.sources}, _by_section(report)
    if report.notice:
        blocks.append(Paragraph((text(report.notice),), "notice"))
    blocks += [Paragraph((own(line),), "notice", "confidence") for line in header_lines(report)]
    if report.summary:
        blocks.append(Paragraph(cites.sentences(report.summary), role="summary"))
    for number, section in enumerate(report.sections):
        blocks.append(Heading(2, clean(section.heading), _full(section.heading, allowed)))
        style: ParagraphStyle = "quote" if section.kind == "verified_findings" else "body"
        if section.layout == "list" and section.paragraphs:  # each paragraph is one item
            entries = (cites.sentences(p.sentences) for p in section.paragraphs)
            blocks.append(ItemList(tuple(entries), role="findings"))
        else:
            for paragraph in section.paragraphs:
                blocks.append(Paragraph(cites.sentences(paragraph.sentences), style))
        if section.table is not None:
            blocks.append(_table(section.table, cites))
            chart = section_chart(section, cites.chartable)
            if chart is not None:
                blocks.append(_chart(chart, cites))
        blocks += [_figure(f, refs[f.source_id], cites) for f in placed.get(number, [])]
    for heading, items in (
        ("Limitations", report.limitations),
        ("Suggestions", report.suggestions),
    ):
        if items:
            blocks.append(Heading(2, heading))
            blocks.append(ItemList(tuple((text(item),) for item in items)))
    quotes = quotes_by_source(report)
    listed = tuple(
        Source(
            ref.number,
            clean(ref.title or ref.url),
            ref.url,
            clean(ref.domain),
            tuple(clean(item.quote) for item in quotes.get(ref.id, [])),
            published=ref.published,
            detail=source_detail(ref),
        )
        for ref in report.sources
    )
    if listed:
        blocks += [Heading(2, "Sources"), SourceList(listed)]
    if report.considered:
        blocks += _considered(report, cites)
    summary = audit_line(report)
    if summary:
        audit = own(summary, italic=True)
        blocks.append(Paragraph((audit,), "note", "audit-summary"))
    if report.evaluation is not None:
        blocks += _evaluation(report.evaluation, cites)
    usage = own(usage_line(report).strip("_"), italic=True)
    blocks.append(Paragraph((usage,), "note", "usage"))
    return Document(
        title=clean(report.title),
        blocks=tuple(blocks),
        subject=clean(report.question),
        created=report.created_at,
        references=listed,
    )


def _by_section(report: Report) -> dict[int, list[ReportFigure]]:
    """The report's figures by the section they illustrate; a figure cites its page, so
    never one whose page the sources list lacks."""
    cited = {ref.id for ref in report.sources}
    placed: dict[int, list[ReportFigure]] = {}
    for figure in report.figures:
        if figure.source_id in cited:
            placed.setdefault(figure.section, []).append(figure)
    return placed


def _figure(figure: ReportFigure, ref: SourceRef, cites: _Cites) -> ImageBlock:
    """A figure from a cited page: its image, its caption as the page has it (made safe),
    and its credit, the page's title linked and cited by its source number."""
    caption = cites.clean(figure.caption)
    return ImageBlock(
        data=base64.b64decode(figure.data),
        mime=figure.mime,
        width=figure.width,
        height=figure.height,
        caption=caption,
        alt=cites.clean(figure.alt) or caption,
        credit=f"Figure from {cites.clean(ref.domain)}: {cites.clean(ref.title or ref.url)}",
        url=ref.url or None,
        citations=(ImageCitation(ref.number, ref.url or None, caption),),
    )


def _full(text: str, allowed: Collection[str]) -> str | None:
    """A model's or a page's ``text`` made safe with its line breaks kept, where that
    differs from its one-line form."""
    safe = neutralize(text, allowed)
    return safe if safe != flat(safe) else None


class _Cites:
    """A report's citation numbers, cited addresses and verified quotes, and the spans
    made from its text by them."""

    def __init__(self, report: Report) -> None:
        self.numbers = citation_numbers(report)
        self.allowed = allowed_urls(report)
        self.urls = {ref.number: ref.url for ref in report.sources}
        self.quotes: dict[str, Evidence] = {e.id: e for e in report.evidence if e.verified}
        self.chartable = chartable_evidence(report)

    def clean(self, text: str) -> str:
        return flat(neutralize(text, self.allowed))

    def text(self, text: str) -> Span:
        """A model's or a page's words as a span."""
        return Span(self.clean(text), full=_full(text, self.allowed))

    def own(self, text: str, *, italic: bool = False) -> Span:
        """The program's own words as a span (made safe for a page that follows links)."""
        safe = neutralize(text, self.allowed)
        return Span(text, italic=italic, own=True, full=safe if safe != text else None)

    def marks(self, sentence: Sentence) -> list[Span]:
        """A sentence's citations ``[n]``, each with the first quote it stands for."""
        spans = []
        for n in cite_marks(sentence, self.numbers):
            quote = next(
                (
                    flat(self.quotes[c].quote)
                    for c in sentence.citations
                    if self.numbers.get(c) == n
                ),
                "",
            )
            note = neutralize(quote, self.allowed)
            spans.append(Span(f"[{n}]", url=self.urls.get(n), cite=n, note=note))
        return spans

    def sentences(self, sentences: Iterable[Sentence]) -> tuple[Span, ...]:
        spans: list[Span] = []
        for sentence in sentences:
            if spans:
                spans.append(Span(" "))
            spans.append(Span(self.clean(sentence.text)))
            marks = self.marks(sentence)
            if marks:
                spans.append(Span(" "))
            spans += marks
            flag = audit_flag(sentence)
            if flag:
                spans += [Span(" "), Span(flag, mark=True)]
        return tuple(spans)


#: the considered table's columns (HTML shows them all) and those a narrow page shows
_CONSIDERED = (
    "source",
    "found by",
    "tier",
    "type",
    "authority",
    "recency",
    "retrieval",
    "credibility",
    "signal",
    "model",
    "extractability",
    "query ×",
    "final",
    "decision",
)
_NARROW = ("source", "found by", "tier", "signal", "model", "final", "decision")


def _considered(report: Report, cites: _Cites) -> list[Block]:
    """The table of every candidate source with each ranking dimension and why it was
    read or dropped; only cited sources link, the others show their address as text."""
    counts = considered_by_provider(report)
    several = len(counts) > 1
    blocks: list[Block] = [Heading(2, "Sources considered")]
    if several:
        blocks.append(Paragraph((cites.own(counts_line(counts)),), "note", "found-by"))
    header = tuple(name for name in _CONSIDERED if several or name != "found by")
    narrow = tuple(i for i, name in enumerate(header) if name in _NARROW)
    widths = (0.3, *((0.1,) if several else ()), 0.12, 0.07, 0.07, 0.07)
    widths += (1.0 - sum(widths),)
    rows = [_considered_row(s, cites, several) for s in report.considered]
    blocks.append(Table(header, tuple(rows), widths, "considered", narrow))
    return blocks


def _considered_row(s: SourceScores, cites: _Cites, several: bool) -> tuple[Cell, ...]:
    def num(value: float | None) -> Cell:
        return (Span("–" if value is None else f"{value:.2f}", own=True),)

    name = cites.text(considered_name(s))
    cited = url_key(s.url) in cites.allowed
    where = (replace(name, url=s.url),) if cited else (name, Span(" "), Span(s.url, code=True))
    cells: list[Cell] = [where]
    if several:
        cells.append((cites.text(", ".join(s.providers)),))
    cells += [
        (cites.own(s.tier),),
        (cites.own(s.source_type),),
        (Span(str(s.domain_authority), own=True),),
        num(s.recency),
        num(s.retrieval_relevance),
        num(s.credibility),
        num(s.signal_score),
        num(s.model_score),
        num(s.extractability),
        num(s.query_multiplier),
        (replace(num(s.final)[0], bold=True),),
        (cites.text(s.reason),),
    ]
    return tuple(cells)


def _chart(chart: Chart, cites: _Cites) -> ImageBlock:
    """A chart of a section's verified numbers, captioned with each point and the
    citation of the quote it was read from."""
    # imported when a chart is drawn: matplotlib takes half a second to load
    from deepresearch.export.chart import PIXELS, chart_png

    numbers = tuple(cites.numbers[point.evidence_id] for point in chart.points)
    unit = f" ({chart.unit})" if chart.unit else ""
    caption: list[Span] = [cites.own(f"Chart of the numbers the quotes state{unit}: ")]
    for index, (point, n) in enumerate(zip(chart.points, numbers, strict=True)):
        caption.append(Span(("; " if index else "") + cites.clean(f"{point.label}: {point.text}")))
        note = neutralize(flat(cites.quotes[point.evidence_id].quote), cites.allowed)
        caption += [Span(" "), Span(f"[{n}]", url=cites.urls.get(n), cite=n, note=note)]
    caption.append(Span("."))
    alt = cites.clean(
        f"Bar chart, {chart.title}{unit}: "
        + ", ".join(f"{point.label} {point.text}" for point in chart.points)
    )
    return ImageBlock(
        data=chart_png(chart, numbers),
        mime="image/png",
        width=PIXELS[0],
        height=PIXELS[1],
        caption="".join(span.text for span in caption),
        alt=alt,
        spans=tuple(caption),
    )


def _evaluation(result: EvalResult, cites: _Cites) -> list[Block]:
    """The "Evaluation" section in ``export.report_evaluation``'s words: the figures, the
    judge's overall line, and its scores with reasons as a table (the reasons are a
    model's words, so they are neutralized)."""
    blocks: list[Block] = [
        Heading(2, HEADING),
        ItemList(tuple((Span(line, own=True),) for line in figures(result)), role="figures"),
    ]
    judged = judge_line(result)
    if judged:
        blocks.append(Paragraph((cites.text(judged),), role="judge"))
    if result.scores:
        rows = tuple(
            (
                (Span(DIMENSION_NAMES[score.dimension], own=True),),
                (Span(f"{score.score:.1f}", bold=True, own=True),),
                (cites.text(score.reason),),
            )
            for score in (*result.scores, *result.process_scores)
        )
        header = ("dimension", "score", "reason")
        blocks.append(Table(header, rows, (0.22, 0.1, 0.68), "evaluation"))
    return blocks


def _table(table: ReportTable, cites: _Cites) -> Table:
    """A report's table (key facts, or a planned table, timeline or comparison) with a
    "Source" column of citation marks (and the audit's flag on a row), as the
    markdown and HTML draw it."""
    rows = []
    for row in table.rows:
        cited = row_sentence(row)
        flag = audit_flag(cited)
        source = tuple(cites.marks(cited))
        source += (Span(" "), Span(flag, mark=True)) if flag else ()
        rows.append((*((Span(cites.clean(cell)),) for cell in row.cells), source))
    share = 0.88 / max(1, len(table.columns))
    widths = (*(share for _ in table.columns), 0.12)
    return Table((*map(cites.clean, table.columns), "Source"), tuple(rows), widths)
