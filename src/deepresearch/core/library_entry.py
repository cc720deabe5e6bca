"""What a finished research run adds to its owner's library (issue 25), pure: its report,
its verified quotes, its claims, and the pages they quote with their stored text and the
time the run read them. Quotes that failed verification, pages read but never quoted and
snippets (never fetched) stay out: the library holds what was verified."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from deepresearch.models import Report, Source
from deepresearch.models.library import LibraryClaim, LibraryEntry, LibraryQuote, LibrarySource


def library_entry(
    report: Report,
    sources: Mapping[str, Source],
    *,
    recipe: str,
    markdown: str,
    finished_at: datetime,
    fetched_at: Mapping[str, datetime],
) -> LibraryEntry:
    """``report`` as a library entry; ``sources`` the run's pages by id, ``fetched_at``
    when each URL was read (a URL missing from it: the time is not known)."""
    quotes = [
        LibraryQuote(
            evidence_id=evidence.id,
            source_id=evidence.source_id,
            quote=evidence.quote,
            claim=evidence.claim,
            sub_question_id=evidence.sub_question_id,
        )
        for evidence in report.evidence
        if evidence.verified and _quotable(sources.get(evidence.source_id))
    ]
    kept = {quote.evidence_id for quote in quotes}
    claims = []
    for claim in report.claims.claims if report.claims else []:
        support = [evidence_id for evidence_id in claim.supporting if evidence_id in kept]
        if not support:
            continue
        first = next(q.source_id for q in quotes if q.evidence_id == support[0])
        claims.append(
            LibraryClaim(
                claim_id=claim.id,
                text=claim.text,
                source_id=first,
                evidence_ids=support,
                confidence=claim.confidence,
                contradiction=claim.contradiction,
            )
        )
    quoted = dict.fromkeys(quote.source_id for quote in quotes)
    return LibraryEntry(
        run_id=report.run_id,
        recipe=recipe,
        question=report.question,
        title=report.title,
        kind=report.kind,
        report=markdown,
        finished_at=finished_at,
        sources=[_source(sources[source_id], fetched_at) for source_id in quoted],
        quotes=quotes,
        claims=claims,
    )


def _quotable(source: Source | None) -> bool:
    return source is not None and source.fetched and bool(source.text)


def _source(source: Source, fetched_at: Mapping[str, datetime]) -> LibrarySource:
    return LibrarySource(
        source_id=source.id,
        url=source.url,
        title=source.title,
        domain=source.domain,
        kind=source.kind,
        text=source.text,
        fetched_at=fetched_at.get(source.url),
    )
