"""An EmployerResult as a ``models.document.Document``: the one document every format but
JSON draws (``export.formats``: markdown, HTML, PDF, DOCX, ODT, LaTeX, and the
bibliographies of the pages its cited quotes come from). Pure.

Status, summary, the found items with their citations, the inferred items labelled as
assumptions, the quality assessment, the routing table, the searches and the cited
evidence. A citation ``[n]`` stands for one verified quote, listed under Evidence with
its page, and links to that page. Every word a page or a model wrote is made safe first
(``neutralize``: nothing a renderer would load or follow but the cited pages' addresses)
and put on one line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from deepresearch.core.provenance import url_key
from deepresearch.export.report_text import flat, neutralize
from deepresearch.models.document import (
    Block,
    Document,
    Heading,
    ItemList,
    Paragraph,
    Source,
    SourceList,
    Span,
    Table,
)
from deepresearch.recipes.employer.models import CleanedData, EmployerResult, ProfileItem
from deepresearch.recipes.employer.profile_text import (
    ROUTING_HEADER,
    attempt_label,
    cited_ids,
    evidence_numbers,
    meta_line,
    profile_title,
    routing_cells,
    shown_data,
    status_lines,
)

#: the routing table's columns a narrow page (markdown, PDF, DOCX) shows, and their shares
#: of its width: all but the state each step left, which a page that reflows shows too
_NARROW = (0, 1, 2, 3, 4, 5, 6)
_WIDTHS = (0.09, 0.11, 0.11, 0.12, 0.21, 0.2, 0.16)

Clean = Callable[[str], str]
Marks = Callable[[Sequence[str]], tuple[Span, ...]]


def employer_document(result: EmployerResult) -> Document:
    numbers = evidence_numbers(result)
    cited = cited_ids(result)
    by_id = {item.id: item for item in result.evidence}
    allowed = frozenset(url_key(by_id[i].source_url) for i in cited if i in by_id)

    def clean(text: str) -> str:
        return flat(neutralize(text, allowed))

    def marks(ids: Sequence[str]) -> tuple[Span, ...]:
        spans = []
        for n, eid in sorted({(numbers[i], i) for i in ids if i in numbers}):
            item = by_id.get(eid)
            url = _link(item.source_url) if item else None
            spans.append(Span(f"[{n}]", url=url, cite=n, note=clean(item.quote) if item else ""))
        return (Span(" "), *spans) if spans else ()

    title = clean(profile_title(result))
    blocks = _status(result, title, clean)
    blocks += _profile(shown_data(result), marks, clean)
    blocks += _quality(result, clean)
    blocks += _routing(result)
    blocks += _searches(result, clean)
    blocks += _evidence(result, numbers, clean)
    return Document(
        title=title,
        blocks=tuple(blocks),
        subject=title,
        created=result.created,
        references=_references(result, clean),
    )


def _references(result: EmployerResult, clean: Clean) -> tuple[Source, ...]:
    """The pages the cited quotes come from, each once, in the order first cited (the
    bibliography formats' entries); a pasted job posting is no page to cite."""
    by_id = {item.id: item for item in result.evidence}
    info = {source.url: source for source in result.sources}
    cited = (by_id[i].source_url for i in cited_ids(result) if i in by_id)
    urls = [url for url in dict.fromkeys(cited) if _link(url)]
    refs = []
    for number, url in enumerate(urls, start=1):
        source = info.get(url)
        title = clean(source.title) if source is not None and source.title else url
        domain = (source.domain if source is not None else "") or urlsplit(url).hostname or ""
        refs.append(Source(number, title, url, clean(domain)))
    return tuple(refs)


def _link(url: str) -> str | None:
    return url if url.startswith(("http://", "https://")) else None


def _status(result: EmployerResult, title: str, clean: Clean) -> list[Block]:
    """The title, what was asked, the status lines, and the early exit's notice."""
    blocks: list[Block] = [
        Heading(1, title),
        Paragraph((Span(clean(meta_line(result)), italic=True),), "note"),
        ItemList(tuple((Span(clean(line)),) for line in status_lines(result))),
    ]
    if result.early_exit:
        notice = (
            "No profile is passed on: bad data is worse than no data. What the "
            "research found is shown below for transparency only."
        )
        blocks.append(Paragraph((Span(notice, own=True),), "notice"))
    return blocks


def _profile(data: CleanedData, marks: Marks, clean: Clean) -> list[Block]:
    """The summary, the found items with their citations, the inferred ones apart."""
    blocks: list[Block] = [Heading(2, "Summary")]
    if data.employer_summary:
        blocks.append(
            Paragraph((Span(clean(data.employer_summary)), *marks(data.summary_evidence)))
        )
    else:
        blocks.append(
            Paragraph((Span("No summary could be built from verified sources.", italic=True),))
        )
    for heading, items in (
        ("Tech stack (found in sources)", data.tech_stack),
        ("Requirements", data.identified_requirements),
        ("Culture signals", data.culture_signals),
    ):
        blocks.append(Heading(2, heading))
        blocks.append(_items(items, marks, clean))
    industry = data.inferred_industry
    if industry is not None:
        blocks += [
            Heading(2, "Inferred (not found in any source)"),
            Paragraph(
                (
                    Span("Industry: "),
                    Span(clean(industry.industry), bold=True),
                    Span(
                        f", guessed from the words {clean(', '.join(industry.matched_signals))}. "
                        "Technologies typical of that industry, offered as assumptions to "
                        "check, not as facts about this employer:"
                    ),
                )
            ),
            _items(data.inferred_tech_stack, marks, clean, none="(all already found in sources)"),
        ]
    return blocks


def _items(
    items: Sequence[ProfileItem], marks: Marks, clean: Clean, *, none: str = "None found."
) -> Block:
    if not items:
        return Paragraph((Span(none, italic=True),))
    return ItemList(
        tuple(
            (
                Span(clean(item.text)),
                *((Span(" (inferred)", italic=True),) if item.inferred else ()),
                *marks(item.evidence),
            )
            for item in items
        )
    )


def _quality(result: EmployerResult, clean: Clean) -> list[Block]:
    """The reranker's verdict, what it pruned and why, and the problems met."""
    r = result.reranker
    lines = [
        f"Flags: {', '.join(r.quality_flags) or 'none'}",
        f"Missing: {', '.join(r.missing_data_categories) or 'nothing'}",
        f"Bad-data patterns: {', '.join(r.patterns_detected) or 'none'}",
        f"Company verification: {r.company_verification.status} ({r.company_verification.note})",
        f"Reasoning: {r.reasoning_trace}",
    ]
    pruned = r.pruned_data
    for name, values in (
        ("Pruned generic tech terms", pruned.tech_stack),
        ("Pruned generic requirements", pruned.identified_requirements),
        ("Pruned platitudes", pruned.culture_signals),
        ("Not supported by any verified passage", pruned.unsupported),
    ):
        if values:
            lines.append(f"{name}: {'; '.join(values)}")
    lines += [f"Problem: {text}" for text in [*result.processing_errors, *result.warnings]]
    return [
        Heading(2, "Quality assessment"),
        ItemList(tuple((Span(clean(line)),) for line in lines)),
    ]


def _routing(result: EmployerResult) -> list[Block]:
    """Every routing decision, with the state it left (the program's own words)."""
    if not result.routing_trace:
        return []
    rows = tuple(
        tuple((Span(cell, own=True),) for cell in routing_cells(step))
        for step in result.routing_trace
    )
    return [Heading(2, "Routing"), Table(ROUTING_HEADER, rows, _WIDTHS, narrow=_NARROW)]


def _searches(result: EmployerResult, clean: Clean) -> list[Block]:
    """Each query of each attempt and what it kept (an attempt not searched says so)."""
    lines: list[str] = []
    for attempt in result.attempts:
        label = attempt_label(attempt.attempt)
        if not attempt.queries:
            lines.append(f"{label}: not searched")
        for res in attempt.results:
            found = f"{len(res.evidence)} passages kept" if res.evidence else "nothing kept"
            if res.error:
                found = f"failed: {res.error}"
            lines.append(f"{label}: “{clean(res.query)}” — {clean(found)}")
    items = tuple((Span(line),) for line in lines)
    return [Heading(2, "Searches"), ItemList(items)] if items else []


def _evidence(result: EmployerResult, numbers: dict[str, int], clean: Clean) -> list[Block]:
    """The cited quotes, each numbered as cited, with its page; the others only counted
    (the JSON has them all)."""
    titles = {source.url: source.title for source in result.sources}
    cited = set(cited_ids(result))
    listed = tuple(
        Source(
            numbers[item.id],
            clean(titles.get(item.source_url) or item.source_url),
            _link(item.source_url) or "",
            clean(urlsplit(item.source_url).netloc or "pasted text"),
            (clean(item.quote),),
        )
        for item in sorted(result.evidence, key=lambda e: numbers.get(e.id, 10**6))
        if item.id in cited
    )
    blocks: list[Block] = [Heading(2, "Evidence")]
    if listed:
        blocks.append(SourceList(listed))
    else:
        blocks.append(Paragraph((Span("No quote is cited.", italic=True),)))
    others = len(result.evidence) - len(cited)
    if others > 0:
        note = f"{others} other verified passages were read; the JSON output lists them."
        blocks.append(Paragraph((Span(note, own=True, italic=True),), "note"))
    return blocks
