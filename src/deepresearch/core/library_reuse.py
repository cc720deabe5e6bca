"""Reusing what the owner's library verified (issue 25), pure: what a new run asks its
library for each sub-question, which of the quotes it is offered it takes (ranked as a
research unit ranks passages, ``core.passages.answer_scores``), which pages are fresh
enough to use from their stored text and which must be fetched again, and what is reused:
every quote verified again (``core.verify.verify_quote``) against the text it will be
cited from, the stored one for a fresh page, the new one for a page fetched again. A
quote that is no longer on its page, or whose page could not be read again, is not
reused, and the report says so.

The stage around it is ``recipes/research/stages/library.py``; the library itself is
``librarydb/`` (``Shelf``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import cast

from deepresearch.core.content_quality import assess_content
from deepresearch.core.ids import source_id
from deepresearch.core.library_query import query_words
from deepresearch.core.passages import answer_scores
from deepresearch.core.questions import QuestionProfile
from deepresearch.core.text import content_words
from deepresearch.core.verify import verify_quote
from deepresearch.models import Evidence, Passage, Source, SourceRef, SubQuestion
from deepresearch.models.library import (
    DroppedQuote,
    LibraryReuse,
    LibrarySource,
    ReusedQuote,
    ShelvedPage,
    ShelvedQuote,
)
from deepresearch.models.source import SourceKind

#: quotes asked of the library for one sub-question, before ranking
ASK_LIMIT = 40
#: words of a sub-question the library is asked for (the most a library query takes)
MAX_WORDS = 16
#: of the best score among the offered quotes: a quote below it is not taken (as a unit's
#: no-model floor, ``stages/unit.py``)
RELEVANT_RATIO = 0.3
#: the provider a reused page is credited to
PROVIDER = "library"
#: why a quote was not reused
CHANGED = "no longer on its page"
UNREADABLE = "its page could not be read again"


def library_words(sub_question: SubQuestion) -> list[str]:
    """The words the library is asked for: the sub-question's content words (a quote
    holding any of them is a candidate; the ranking decides)."""
    content = set(content_words(sub_question.text))
    return [word for word in query_words(sub_question.text) if word in content][:MAX_WORDS]


@dataclass(frozen=True)
class Offer:
    """A library quote taken for a sub-question."""

    sub_question_id: str
    quote: ShelvedQuote


def choose_offers(
    sub_question: SubQuestion,
    profile: QuestionProfile,
    shelved: Sequence[ShelvedQuote],
    *,
    known_urls: Iterable[str] = (),
    taken: Iterable[tuple[str, str]] = (),
    limit: int,
) -> list[Offer]:
    """The quotes of ``shelved`` relevant to ``sub_question``, best first, at most
    ``limit``: scored as a unit scores the passages it read (answer-aware BM25 over the
    offered quotes, each read with its page's title), those at least ``RELEVANT_RATIO``
    of the best and about the question. A quote of a page the run already has (a
    follow-up's carried pages) or already ``taken`` (``quote_key``) is left out, and a
    quote several runs kept is offered once."""
    skip_urls, skip = set(known_urls), set(taken)
    pool = []
    for quote in shelved:  # the same quote of the same page, kept by several runs: once
        if quote.source.url not in skip_urls and quote_key(quote) not in skip:
            skip.add(quote_key(quote))
            pool.append(quote)
    if not pool or limit <= 0:
        return []
    groups: dict[str, list[Passage]] = {}
    titles: dict[str, str] = {}
    for index, quote in enumerate(pool):
        page = quote.source.url
        passage = Passage(
            id=f"c{index}", source_id=page, text=quote.quote, start=0, end=len(quote.quote)
        )
        groups.setdefault(page, []).append(passage)
        titles.setdefault(page, quote.source.title)
    scores = answer_scores(
        list(groups.values()),
        sub_question.text,
        profile,
        titles=[titles[page] for page in groups],
        ratio=RELEVANT_RATIO,
    )
    ranked = sorted(
        (-score, index)
        for index in range(len(pool))
        for score, relevant in [scores.get(f"c{index}", (0.0, False))]
        if relevant
    )
    return [Offer(sub_question.id, pool[index]) for _, index in ranked[:limit]]


def quote_key(quote: ShelvedQuote) -> tuple[str, str]:
    """A quote of a page, whichever runs kept it."""
    return quote.source.url, " ".join(quote.quote.split())


def is_fresh(fetched_at: datetime | None, now: datetime, days: float) -> bool:
    """A page read less than ``days`` days before ``now``; a page whose read time is not
    known is not fresh (it is fetched again)."""
    return fetched_at is not None and days > 0 and now - fetched_at < timedelta(days=days)


def pages_of(offers: Iterable[Offer]) -> dict[str, ShelvedQuote]:
    """Each offered page once (by URL): the latest read the library holds of it, whose
    stored text every quote of that page is checked against."""
    latest: dict[str, ShelvedQuote] = {}
    for offer in offers:
        url, seen = offer.quote.source.url, latest.get(offer.quote.source.url)
        if seen is None or _later(offer.quote.source.fetched_at, seen.source.fetched_at):
            latest[url] = offer.quote
    return latest


def stale_pages(offers: Iterable[Offer], now: datetime, days: float) -> list[str]:
    """The offered pages to fetch again (older than the window, or of unknown age), in
    the order first offered."""
    return [
        url
        for url, quote in pages_of(offers).items()
        if not is_fresh(quote.source.fetched_at, now, days)
    ]


@dataclass
class Reuse:
    """What the run takes from its library: pages, evidence, and the report's record."""

    sources: dict[str, Source] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    record: LibraryReuse = field(default_factory=lambda: LibraryReuse(offered=0))


def reuse(
    offers: Sequence[Offer],
    refetched: Mapping[str, Source | None],
    *,
    now: datetime,
    days: float,
    offered: int,
) -> Reuse:
    """The offers verified and turned into this run's sources and evidence. ``refetched``:
    each stale page (``stale_pages``) as read again now (None: it could not be read, or it
    tries to instruct the model); every other page is used from its stored text."""
    pages = pages_of(offers)
    out = Reuse(record=LibraryReuse(offered=offered, refetched=len(refetched), fresh_days=days))
    counts: dict[str, int] = {}
    for offer in offers:
        quote, url = offer.quote, offer.quote.source.url
        page = _page(pages[url], refetched, url)
        if page is None:
            out.record.dropped.append(_dropped(quote, UNREADABLE))
            continue
        check = verify_quote(quote.quote, page.text)
        if check.status != "PASS":
            out.record.dropped.append(_dropped(quote, CHANGED))
            continue
        sq = offer.sub_question_id
        counts[sq] = counts.get(sq, 0) + 1
        read_at = now if url in refetched else pages[url].source.fetched_at
        item = Evidence(
            id=f"{sq}-lib{counts[sq]}",
            sub_question_id=sq,
            claim=" ".join((quote.claim or quote.quote).split()),
            quote=quote.quote,
            source_id=page.id,
            source_url=url,
            start=check.start or 0,
            end=check.end or 0,
            verification=check,
        )
        out.evidence.append(item)
        kept = out.sources.get(page.id, page)
        ids = list(dict.fromkeys([*kept.sub_question_ids, sq]))
        out.sources[page.id] = kept.model_copy(
            update={
                "sub_question_ids": ids,
                "library_run": kept.library_run or quote.run_id,
                "library_read": read_at,
            }
        )
        out.record.reused.append(
            ReusedQuote(
                evidence_id=item.id,
                source_id=page.id,
                run_id=quote.run_id,
                fetched_at=read_at,
                refetched=url in refetched,
            )
        )
    return out


def shelved_evidence(
    record: LibraryReuse | None, evidence: Iterable[Evidence]
) -> dict[str, list[Evidence]]:
    """The evidence the library stage reused, by source id: a first-wave unit that
    chooses one of these pages takes its reused quotes for its sub-question instead of
    reading the page again."""
    if record is None:
        return {}
    ids = {item.evidence_id for item in record.reused}
    out: dict[str, list[Evidence]] = {}
    for item in evidence:
        if item.id in ids:
            out.setdefault(item.source_id, []).append(item)
    return out


def with_reused(reused: Sequence[Evidence], found: Sequence[Evidence]) -> list[Evidence]:
    """A unit's evidence from a page the library gave: the reused quotes first, then what
    the unit found on the page's text that is not one of them (the same words)."""
    known = {" ".join(item.quote.split()) for item in reused}
    return [*reused, *(item for item in found if " ".join(item.quote.split()) not in known)]


def fresh_page(page: ShelvedPage | None, now: datetime, days: float) -> Source | None:
    """A page of the library a research unit chose, as a source read from its stored
    text when it is fresh; None when the library does not hold it or it is too old (then
    it is fetched)."""
    if page is None or not page.source.text or not is_fresh(page.source.fetched_at, now, days):
        return None
    return _stored(page.source).model_copy(
        update={"library_run": page.run_id, "library_read": page.source.fetched_at}
    )


def marked(refs: Sequence[SourceRef], sources: Mapping[str, Source]) -> list[SourceRef]:
    """The report's sources, each one whose text or quotes came from the library marked
    with the run they come from and when its page was read."""
    out = []
    for ref in refs:
        source = sources.get(ref.id)
        if source is not None and source.library_run:
            ref = ref.model_copy(
                update={"library_run": source.library_run, "fetched_at": source.library_read}
            )
        out.append(ref)
    return out


def read_times(sources: Mapping[str, Source]) -> dict[str, datetime]:
    """When each page the run took from the library was read, by URL: what this run keeps
    in the library for pages it did not fetch itself."""
    return {s.url: s.library_read for s in sources.values() if s.library_read is not None}


def _page(latest: ShelvedQuote, refetched: Mapping[str, Source | None], url: str) -> Source | None:
    """The page a quote is verified against: read again now, or the stored text."""
    if url in refetched:
        again = refetched[url]
        if again is None or not again.fetched or not again.text:
            return None
        return again.model_copy(update={"provider": PROVIDER, "sub_question_ids": []})
    return _stored(latest.source)


def _stored(stored: LibrarySource) -> Source:
    """A source read from the library's stored text."""
    return Source(
        id=source_id(stored.url),
        url=stored.url,
        title=stored.title,
        domain=stored.domain,
        text=stored.text,
        kind=cast(SourceKind, stored.kind) if stored.kind in ("html", "pdf", "text") else "html",
        provider=PROVIDER,
        content_quality=assess_content(stored.text).tier,
    )


def _dropped(quote: ShelvedQuote, reason: str) -> DroppedQuote:
    return DroppedQuote(
        url=quote.source.url,
        quote=quote.quote,
        run_id=quote.run_id,
        fetched_at=quote.source.fetched_at,
        reason=reason,
    )


def _later(a: datetime | None, b: datetime | None) -> bool:
    if a is None:
        return False
    return b is None or a > b
