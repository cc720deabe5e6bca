"""The library front end: the same run as the CLI, as functions.

>>> report = deepresearch.research("What is X?", model="none", search="local", corpus_dir="docs")
>>> async for event in (stream := deepresearch.research_events("What is X?", model="none")):
...     print(event.type)
>>> stream.report
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel

from deepresearch.fetch.base import Fetcher
from deepresearch.models import Report, RunEvent
from deepresearch.runner import run_research
from deepresearch.search.base import SearchProvider
from deepresearch.settings import Role, Settings, load_settings


async def research_async(
    question: str,
    *,
    settings: Settings | None = None,
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search_provider: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    **options: Any,
) -> Report:
    """Research ``question`` and return the report. ``options`` are Settings fields
    (``model="none"``, ``search="local"``, ``corpus_dir=...``, ``depth="quick"``...)."""
    resolved = settings or load_settings(**options)
    report = await run_research(
        question, resolved, models=models, search=search_provider, fetcher=fetcher
    )
    assert report is not None  # only stop_after pauses a run
    return report


def research(question: str, **kwargs: Any) -> Report:
    """Blocking variant of :func:`research_async`."""
    return asyncio.run(research_async(question, **kwargs))


class research_events:
    """Research ``question`` while yielding its RunEvents as they happen; the report is
    on ``.report`` once iteration ends."""

    def __init__(self, question: str, **kwargs: Any) -> None:
        self.question = question
        self.kwargs = kwargs
        self.report: Report | None = None

    async def __aiter__(self) -> AsyncIterator[RunEvent]:
        queue: asyncio.Queue[RunEvent | None] = asyncio.Queue()
        settings = self.kwargs.pop("settings", None)
        models = self.kwargs.pop("models", None)
        search_provider = self.kwargs.pop("search_provider", None)
        fetcher = self.kwargs.pop("fetcher", None)
        resolved = settings or load_settings(**self.kwargs)

        async def run() -> Report | None:
            try:
                return await run_research(
                    self.question,
                    resolved,
                    sinks=[queue.put_nowait],
                    models=models,
                    search=search_provider,
                    fetcher=fetcher,
                )
            finally:
                queue.put_nowait(None)

        task = asyncio.create_task(run())
        while (event := await queue.get()) is not None:
            yield event
        self.report = await task
