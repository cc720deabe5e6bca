"""The library front end: the same run as the CLI, as functions.

>>> report = deepresearch.research("What is X?", model="none", search="local", corpus_dir="docs")
>>> async for event in (stream := deepresearch.research_events("What is X?", model="none")):
...     print(event.type)
>>> stream.report
>>> profile = deepresearch.research_employer("Google", role="Software Engineer", model="none")

Every entry point checks what it is given before any work, with the same rules as the
CLI and the API: the question is normalised (``core.sanitize.normalize_question``: control
characters removed, whitespace collapsed, at most 4,000 characters) and a bad one raises
``deepresearch.errors.InvalidInput``, as does a malformed ``run_id``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel

from deepresearch.core.ids import check_run_id
from deepresearch.core.sanitize import normalize_question
from deepresearch.events import Sink
from deepresearch.fetch.base import Fetcher
from deepresearch.models import Report, RunEvent
from deepresearch.recipes.employer import EmployerLists, EmployerRequest, EmployerResult
from deepresearch.recipes.employer import run_employer as _run_employer
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
    run_id: str | None = None,
    **options: Any,
) -> Report:
    """Research ``question`` and return the report. ``options`` are Settings fields
    (``model="none"``, ``search="local"``, ``corpus_dir=...``, ``depth="quick"``...);
    ``run_id`` names the run (default: a new id)."""
    question = normalize_question(question)
    run_id = check_run_id(run_id) if run_id is not None else None
    resolved = settings or load_settings(**options)
    report = await run_research(
        question,
        resolved,
        run_id=run_id,
        models=models,
        search=search_provider,
        fetcher=fetcher,
    )
    assert report is not None  # only stop_after pauses a run
    return report


def research(question: str, **kwargs: Any) -> Report:
    """Blocking variant of :func:`research_async`."""
    return asyncio.run(research_async(question, **kwargs))


class research_events:
    """Research ``question`` while yielding its RunEvents as they happen; the report is
    on ``.report`` once iteration ends."""

    def __init__(self, question: str, *, run_id: str | None = None, **kwargs: Any) -> None:
        # checked here, so a bad question fails when the stream is made, not mid-loop
        self.question = normalize_question(question)
        self.run_id = check_run_id(run_id) if run_id is not None else None
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
                    run_id=self.run_id,
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


async def research_employer_async(
    company: str | None = None,
    *,
    role: str | None = None,
    job_description: str | None = None,
    max_queries: int = 2,
    max_result_chars: int = 1500,
    settings: Settings | None = None,
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search_provider: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    lists: EmployerLists | None = None,
    sinks: Sequence[Sink] = (),
    run_id: str | None = None,
    **options: Any,
) -> EmployerResult:
    """Research an employer (seed 000's recipe) and return its profile, or the reason
    there is none (``result.early_exit``). ``options`` are Settings fields, as for
    :func:`research_async`; render the result with
    ``deepresearch.recipes.employer.render_employer(result, "md")``."""
    run_id = check_run_id(run_id) if run_id is not None else None
    request = EmployerRequest(
        company=company,
        role=role,
        job_description=job_description,
        max_queries=max_queries,
        max_result_chars=max_result_chars,
    )
    resolved = settings or load_settings(**options)
    return await _run_employer(
        request,
        resolved,
        sinks=sinks,
        models=models,
        search=search_provider,
        fetcher=fetcher,
        lists=lists,
        run_id=run_id,
    )


def research_employer(company: str | None = None, **kwargs: Any) -> EmployerResult:
    """Blocking variant of :func:`research_employer_async`."""
    return asyncio.run(research_employer_async(company, **kwargs))
