"""Reading a chosen hit into a Source: the provider's full text when it has one (local
corpus, Tavily raw content), else fetch and extract; the search snippet when the fetch
fails (seed 001), marked as not fetched so it is never quoted."""

from __future__ import annotations

import asyncio

from deepresearch.context import RunContext
from deepresearch.core.gate import domain_of
from deepresearch.core.ids import source_id
from deepresearch.errors import FetchError
from deepresearch.fetch.extract import extract, truncate
from deepresearch.models import SearchHit, Source

STAGE = "research"


class SourceReader:
    """Reads each URL once per run, even when several research units want it at once."""

    def __init__(self, ctx: RunContext, known: dict[str, Source]) -> None:
        self.ctx = ctx
        self.known = {source.url: source for source in known.values()}
        self._tasks: dict[str, asyncio.Task[Source]] = {}

    async def read(self, hit: SearchHit) -> Source:
        if hit.url in self.known:
            return self.known[hit.url]
        task = self._tasks.get(hit.url)
        if task is None:
            task = asyncio.create_task(self._read(hit))
            self._tasks[hit.url] = task
        source = await task
        self.known[hit.url] = source
        return source

    async def _read(self, hit: SearchHit) -> Source:
        settings = self.ctx.settings
        base = Source(
            id=source_id(hit.url),
            url=hit.url,
            title=hit.title,
            domain=domain_of(hit.url),
            published=hit.published,
            provider=hit.provider,
        )
        if hit.content:
            text = truncate(hit.content.strip(), settings.max_text_chars)
            source = base.model_copy(update={"text": text, "kind": "text"})
            self._emit_fetched(source, cached=True)
            return source
        try:
            async with self.ctx.fetch_semaphore:
                self.ctx.fetches += 1
                page = await self.ctx.fetcher.fetch(hit.url)
            doc = await asyncio.to_thread(extract, page, max_chars=settings.max_text_chars)
        except FetchError as exc:
            return self._snippet(base, hit, exc.message)
        if not doc.text.strip():
            return self._snippet(base, hit, "no readable text on the page")
        source = base.model_copy(
            update={
                "text": doc.text,
                "title": doc.title or hit.title,
                "kind": doc.kind,
                "published": doc.published or hit.published,
            }
        )
        self._emit_fetched(source, cached=False)
        return source

    def _snippet(self, base: Source, hit: SearchHit, reason: str) -> Source:
        self.ctx.bus.emit(
            "source_failed",
            stage=STAGE,
            message=f"Could not read {base.domain}: {reason}; using the search snippet",
            url=hit.url,
            domain=base.domain,
            reason=reason,
        )
        return base.model_copy(
            update={"text": hit.snippet, "kind": "snippet", "fetched": False, "fetch_error": reason}
        )

    def _emit_fetched(self, source: Source, *, cached: bool) -> None:
        self.ctx.bus.emit(
            "source_fetched",
            stage=STAGE,
            message=f"Read {source.title or source.url}",
            url=source.url,
            title=source.title,
            domain=source.domain,
            kind=source.kind,
            chars=len(source.text),
            from_provider=cached,
        )
