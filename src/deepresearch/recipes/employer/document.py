"""An EmployerResult as an ``models.document.Document``, for the PDF, DOCX, ODT, LaTeX and
bibliography exports. Pure.

The same content as ``render.to_markdown``: status, summary, the found items with their
citations, the inferred items labelled as assumptions, the quality assessment, the
routing table, the searches and the cited evidence. A citation ``[n]`` links to the page
its quote comes from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from deepresearch.models.document import (
    Block,
    Document,
    Heading,
    ItemList,
    Paragraph,
    Source,
    Span,
    Table,
)
from deepresearch.recipes.employer.models import CleanedData, EmployerResult, ProfileItem
from deepresearch.recipes.employer.profile_text import (
    ROUTING_HEADER,
    cite_numbers,
    cited_ids,
    evidence_numbers,
    meta_line,
    profile_title,
    routing_cells,
    shown_data,
    status_lines,
)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _link(url: str) -> str | None:
    return url if url.startswith(("http://", "https://")) else None


def employer_document(result: EmployerResult) -> Document:
    numbers = evidence_numbers(result)
    urls = {item.id: item.source_url for item in result.evidence}

    def marks(ids: Sequence[str]) -> tuple[Span, ...]:
        cited = cite_numbers(ids, numbers)
        by_number = {numbers[i]: urls.get(i, "") for i in ids if i in numbers}
        spans = [Span(f"[{n}]", url=_link(by_number.get(n, ""))) for n in cited]
        return (Span(" "), *spans) if spans else ()

    blocks = _status(result)
    blocks += _profile(shown_data(result), marks)
    blocks += _quality(result)
    blocks += _routing(result)
    blocks += _searches(result)
    blocks += _evidence(result, numbers)
    title = profile_title(result)
    return Document(
        title=title,
        blocks=tuple(blocks),
        subject=title,
        created=result.created,
        references=_references(result),
    )


def _references(result: EmployerResult) -> tuple[Source, ...]:
    """The pages the cited quotes come from, each once, in the order first cited (the
    bibliography formats' entries)."""
    by_id = {item.id: item for item in result.evidence}
    info = {source.url: source for source in result.sources}
    urls = dict.fromkeys(by_id[i].source_url for i in cited_ids(result) if i in by_id)
    refs = []
    for number, url in enumerate(urls, start=1):
        source = info.get(url)
        title = _flat(source.title) if source is not None and source.title else url
        domain = source.domain if source is not None else ""
        refs.append(Source(number, title, url, domain or urlsplit(url).hostname or ""))
    return tuple(refs)


Marks = Callable[[Sequence[str]], tuple[Span, ...]]


def _status(result: EmployerResult) -> list[Block]:
    """The title, what was asked, the status lines, and the early exit's notice."""
    blocks: list[Block] = [
        Heading(1, profile_title(result)),
        Paragraph((Span(_flat(meta_line(result)), italic=True),), "note"),
        ItemList(tuple((Span(_flat(line)),) for line in status_lines(result))),
    ]
    if result.early_exit:
        notice = (
            "No profile is passed on: bad data is worse than no data. What the "
            "research found is shown below for transparency only."
        )
        blocks.append(Paragraph((Span(notice),), "notice"))
    return blocks


def _profile(data: CleanedData, marks: Marks) -> list[Block]:
    """The summary, the found items with their citations, the inferred ones apart."""
    blocks: list[Block] = [Heading(2, "Summary")]
    if data.employer_summary:
        blocks.append(
            Paragraph((Span(_flat(data.employer_summary)), *marks(data.summary_evidence)))
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
        blocks.append(_items(items, marks))
    industry = data.inferred_industry
    if industry is not None:
        blocks += [
            Heading(2, "Inferred (not found in any source)"),
            Paragraph(
                (
                    Span("Industry: "),
                    Span(_flat(industry.industry), bold=True),
                    Span(
                        f", guessed from the words {_flat(', '.join(industry.matched_signals))}. "
                        "Technologies typical of that industry, offered as assumptions to "
                        "check, not as facts about this employer:"
                    ),
                )
            ),
            _items(data.inferred_tech_stack, marks),
        ]
    return blocks


def _routing(result: EmployerResult) -> list[Block]:
    if not result.routing_trace:
        return []
    rows = tuple(
        tuple((Span(cell),) for cell in routing_cells(step)) for step in result.routing_trace
    )
    widths = (0.09, 0.11, 0.11, 0.12, 0.21, 0.2, 0.16)
    return [Heading(2, "Routing"), Table(ROUTING_HEADER, rows, widths)]


def _searches(result: EmployerResult) -> list[Block]:
    searches = []
    for attempt in result.attempts:
        for res in attempt.results:
            found = f"{len(res.evidence)} passages kept" if res.evidence else "nothing kept"
            if res.error:
                found = f"failed: {res.error}"
            searches.append((Span(f"Attempt {attempt.attempt}: “{_flat(res.query)}” — {found}"),))
    return [Heading(2, "Searches"), ItemList(tuple(searches))] if searches else []


def _items(items: Sequence[ProfileItem], marks: Marks) -> Block:
    if not items:
        return Paragraph((Span("None found.", italic=True),))
    return ItemList(
        tuple(
            (
                Span(_flat(item.text)),
                *((Span(" (inferred)", italic=True),) if item.inferred else ()),
                *marks(item.evidence),
            )
            for item in items
        )
    )


def _quality(result: EmployerResult) -> list[Block]:
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
        ItemList(tuple((Span(_flat(line)),) for line in lines)),
    ]


def _evidence(result: EmployerResult, numbers: dict[str, int]) -> list[Block]:
    titles = {source.url: source.title for source in result.sources}
    cited = set(cited_ids(result))
    blocks: list[Block] = [Heading(2, "Evidence")]
    for item in sorted(result.evidence, key=lambda e: numbers.get(e.id, 10**6)):
        if item.id not in cited:
            continue
        title = titles.get(item.source_url) or item.source_url
        blocks.append(
            Paragraph(
                (
                    Span(f"[{numbers[item.id]}] ", bold=True),
                    Span(_flat(title), url=_link(item.source_url)),
                )
            )
        )
        blocks.append(Paragraph((Span(f"“{_flat(item.quote)}”"),), "quote"))
    if not cited:
        blocks.append(Paragraph((Span("No quote is cited.", italic=True),)))
    others = len(result.evidence) - len(cited)
    if others > 0:
        blocks.append(
            Paragraph(
                (Span(f"{others} other verified passages were read; the JSON output lists them."),),
                "note",
            )
        )
    return blocks
