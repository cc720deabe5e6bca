"""Reading a chosen hit into a Source: the provider's full text when it has one (local
corpus, Tavily raw content), else fetch and extract; the search snippet when the fetch
fails (seed 001), marked as not fetched so it is never quoted.

This is the one place a run fetches pages. It fetches only URLs whose provenance it knows
(a search result, the corpus, the user: ``core.provenance``), reads a page of the owner's
library that is fresh from its stored text instead (``LibraryPages``), and scans what it read, the
visible and the hidden text, for instructions aimed at a model (``injection``): what
it found comes back with the source (``Reading.findings``), and the caller drops the page
(``core.waves.drop_flagged``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

from deepresearch.context import RunContext
from deepresearch.core.content_quality import assess_content
from deepresearch.core.gate import domain_of
from deepresearch.core.ids import source_id
from deepresearch.core.library_reuse import fresh_page
from deepresearch.core.provenance import REFUSED, Provenance
from deepresearch.core.waves import Reading
from deepresearch.errors import FetchError
from deepresearch.fetch.extract import truncate
from deepresearch.fetch.extract_pool import extract_page
from deepresearch.injection import Finding, scan_page
from deepresearch.librarydb.shelf import Shelf
from deepresearch.models import SearchHit, Source
from deepresearch.models.event_payloads import (
    FetchRefusedWarning,
    InjectionWarning,
    SourceFailed,
    SourceFetched,
)

STAGE = "research"


@dataclass(frozen=True)
class LibraryPages:
    """The owner's library as a research unit's reader sees it: a chosen page the library
    read within ``days`` of ``now`` is read from its stored text, not fetched."""

    shelf: Shelf
    now: datetime
    days: float


class SourceReader:
    """Reads each URL once per run, even when several research units want it at once:
    every caller gets the same ``Reading``. A unit cut at its time limit stops a read
    only when no other unit waits for it."""

    def __init__(
        self,
        ctx: RunContext,
        known: dict[str, Source],
        provenance: Provenance | None = None,
        library: LibraryPages | None = None,
    ) -> None:
        self.ctx = ctx
        self.provenance = provenance if provenance is not None else Provenance()
        self.library = library
        self._tasks: dict[str, asyncio.Task[Reading]] = {}
        #: how many callers wait for each read in flight
        self._waiting: dict[str, int] = {}
        self._known = {source.url: Reading(source) for source in known.values()}

    async def read(self, hit: SearchHit) -> Reading:
        if hit.url in self._known:
            return self._known[hit.url]
        task = self._tasks.get(hit.url)
        if task is None:
            task = asyncio.create_task(self._read(hit))
            self._tasks[hit.url] = task
        url = hit.url
        self._waiting[url] = self._waiting.get(url, 0) + 1
        try:
            # shielded: a unit cut at its time limit must not cancel a read another awaits
            reading = await asyncio.shield(task)
        finally:
            self._waiting[url] -= 1
            if not self._waiting[url] and not task.done():
                # its only caller was cut: stop the read (a later unit reads it afresh)
                task.cancel()
                self._tasks.pop(url, None)
        self._known[url] = reading
        return reading

    async def _read(self, hit: SearchHit) -> Reading:
        policy = self.ctx.fetch_policy
        base = Source(
            id=source_id(hit.url),
            url=hit.url,
            title=hit.title,
            domain=domain_of(hit.url),
            published=hit.published,
            provider=hit.provider,
        )
        if hit.content:
            text = truncate(hit.content.strip(), policy.max_text_chars)
            source = base.model_copy(
                update={"text": text, "kind": "text", "content_quality": assess_content(text).tier}
            )
            self._emit_fetched(source, cached=True)
            return Reading(source, self._screen(source, hit.content))
        if not self.provenance.allows(hit.url):
            self.ctx.bus.emit(
                FetchRefusedWarning(code="fetch_refused", url=hit.url),
                stage=STAGE,
                message=f"Refused to fetch {hit.url}: it came from no search result or request",
            )
            return Reading(self._snippet(base, hit, REFUSED))
        stored = await self._from_library(hit)
        if stored is not None:
            return stored
        gateway = self.ctx.gateway
        try:
            async with self.ctx.fetch_semaphore:
                # asked once a fetch may start: a budget may run out while it waits
                if gateway.budget.check(gateway.usage, at=f"fetch {hit.url}") is not None:
                    return Reading(
                        self._snippet(base, hit, "not fetched: the run's budget was used up")
                    )
                self.ctx.ledger.fetches += 1
                page = await self.ctx.fetcher.fetch(hit.url)
            doc = await extract_page(
                page, max_chars=policy.max_text_chars, workers=policy.extract_workers
            )
        except FetchError as exc:
            return Reading(self._snippet(base, hit, exc.message))
        if not doc.text.strip():
            return Reading(self._snippet(base, hit, "no readable text on the page"))
        source = base.model_copy(
            update={
                "text": doc.text,
                "title": doc.title or hit.title,
                "kind": doc.kind,
                "published": doc.published or hit.published,
                "content_quality": assess_content(doc.text).tier,
                "figures": list(doc.figures),
            }
        )
        self._emit_fetched(source, cached=False)
        # a figure's caption is shown on the page but left out of its text: scanned too
        shown = "\n\n".join([doc.text, *(figure.caption for figure in doc.figures)])
        return Reading(source, self._screen(source, shown, doc.hidden_text))

    async def _from_library(self, hit: SearchHit) -> Reading | None:
        """The page from the owner's library's stored text when it is fresh (no fetch)."""
        if self.library is None:
            return None
        library = self.library
        source = fresh_page(await library.shelf.page(hit.url), library.now, library.days)
        if source is None:
            return None
        self._emit_fetched(source, cached=True, where=" from your library")
        return Reading(source, self._screen(source, source.text))

    def _screen(self, source: Source, text: str, hidden: str = "") -> tuple[Finding, ...]:
        """What the page tries to make a model do, with a warning when it tries anything."""
        findings = scan_page(text, hidden)
        if not findings:
            return ()
        first = findings[0]
        self.ctx.bus.emit(
            InjectionWarning(
                code="injection",
                url=source.url,
                phrase=first.excerpt[:80],
                kinds=", ".join(sorted({finding.kind for finding in findings})),
                hidden=any(finding.hidden for finding in findings),
            ),
            stage=STAGE,
            message=f"Dropped {source.domain}: its text tries to instruct the model "
            f"({first.describe()})",
        )
        return tuple(findings)

    def _snippet(self, base: Source, hit: SearchHit, reason: str) -> Source:
        self.ctx.bus.emit(
            SourceFailed(url=hit.url, domain=base.domain, reason=reason),
            stage=STAGE,
            message=f"Could not read {base.domain}: {reason}; using the search snippet",
        )
        return base.model_copy(
            update={
                "text": hit.snippet,
                "kind": "snippet",
                "fetched": False,
                "fetch_error": reason,
                "content_quality": assess_content(hit.snippet, fetched=False).tier,
            }
        )

    def _emit_fetched(self, source: Source, *, cached: bool, where: str = "") -> None:
        self.ctx.bus.emit(
            SourceFetched(
                url=source.url,
                title=source.title,
                domain=source.domain,
                kind=source.kind,
                chars=len(source.text),
                from_provider=cached,
            ),
            stage=STAGE,
            message=f"Read {source.title or source.url}{where}",
        )
