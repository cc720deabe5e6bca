"""Library: between the plan and the first research wave, the run looks in its owner's
library (``RunContext.library``; None with ``--no-library``) for quotes earlier runs
verified that are relevant to its sub-questions, and takes them with their pages as
evidence (``core.library_reuse``: which quotes, which pages are fresh, what is reused). A
page read within the freshness window (``library_fresh_days``) is not fetched: its stored
text is used. An older one is fetched again through the run's reader (the normal fetcher,
its provenance, its injection screen) and each of its quotes verified against the new
text; a quote no longer there is not reused, and the report says so. The research units
then skip the reused pages (they are the run's sources already), so none is fetched twice,
and read any other fresh page of the library they choose from its stored text
(``reading.LibraryPages``, by the time noted here).

An empty library (nothing holds any word of the sub-questions) changes nothing: no event,
no clock read, no state; a run recorded over one replays as it always did."""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime

from deepresearch.context import RunContext
from deepresearch.core.library_reuse import (
    ASK_LIMIT,
    PROVIDER,
    Offer,
    choose_offers,
    library_words,
    pages_of,
    quote_key,
    reuse,
    stale_pages,
)
from deepresearch.core.provenance import Provenance
from deepresearch.core.questions import analyze_question
from deepresearch.models import SearchHit, Source, SubQuestion
from deepresearch.models.event_payloads import LibraryReused
from deepresearch.models.library import ShelvedQuote
from deepresearch.reading import SourceReader
from deepresearch.recipes.research.state import RunState

STAGE = "library"


async def library(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    shelf = ctx.library
    if shelf is None:
        return {}
    sources = dict(state.get("sources", {}))
    pending = [sq for sq in state.get("sub_questions", []) if sq.status == "pending"]
    asked = [library_words(sq) for sq in pending]
    answers = await asyncio.gather(*(shelf.quotes(words, limit=ASK_LIMIT) for words in asked))
    if not any(answers):  # an empty library: the run goes on exactly as without one
        return {}
    now = ctx.clock()  # the research units read fresh library pages by it too
    checked: RunState = {"library_checked": now.isoformat()}
    known = {s.url for s in sources.values()}
    offers = _offers(ctx, state["question"], pending, answers, known)
    if not offers:
        return checked
    days = ctx.fetch_policy.library_fresh_days
    stale = stale_pages(offers, now, days)
    refetched = await _read_again(ctx, state["question"], offers, stale)
    taken = reuse(offers, refetched, now=now, days=days, offered=len(offers))
    record = taken.record
    for source_id, source in taken.sources.items():
        sources[source_id] = source
    ctx.bus.emit(
        LibraryReused(
            offered=record.offered,
            reused=len(record.reused),
            pages=len({item.source_id for item in record.reused if not item.refetched}),
            refetched=record.refetched,
            dropped=len(record.dropped),
            runs=record.runs,
        ),
        stage=STAGE,
        message=f"From your library: {len(record.reused)} of {record.offered} verified quotes "
        f"reused, {record.refetched} page(s) fetched again, {len(record.dropped)} not reused",
    )
    return {
        **checked,
        "sources": sources,
        "evidence": [*state.get("evidence", []), *taken.evidence],
        "library": record,
    }


def _offers(
    ctx: RunContext,
    question: str,
    pending: list[SubQuestion],
    answers: list[list[ShelvedQuote]],
    known: set[str],
) -> list[Offer]:
    """The library's quotes for each pending sub-question, ranked, each quote taken for
    one sub-question at most (the first that ranks it)."""
    profile = analyze_question(question)
    offers: list[Offer] = []
    for sq, found in zip(pending, answers, strict=True):
        taken = {quote_key(o.quote) for o in offers}
        offers += choose_offers(
            sq,
            profile,
            found,
            known_urls=known,
            taken=taken,
            limit=ctx.limits.evidence_per_question,
        )
    return offers


async def _read_again(
    ctx: RunContext, question: str, offers: list[Offer], stale: list[str]
) -> dict[str, Source | None]:
    """Each stale page read again through the run's reader (None: it could not be read,
    or it tries to instruct the model)."""
    if not stale:
        return {}
    provenance = Provenance.for_run(question)
    for url in stale:
        provenance.add(url, "library")
    reader = SourceReader(ctx, {}, provenance)
    pages = pages_of(offers)
    hits = [SearchHit(url=url, title=pages[url].source.title, provider=PROVIDER) for url in stale]
    readings = await asyncio.gather(*(reader.read(hit) for hit in hits))
    return {
        hit.url: None if reading.findings else reading.source
        for hit, reading in zip(hits, readings, strict=True)
    }
