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

>>> profile = deepresearch.run_recipe("employer", "Google", options={"role": "SRE"}, model="none")
>>> scores = deepresearch.evaluate(report.run_id, judge_model="none")  # stored with the run
>>> more = deepresearch.ask(report.run_id, "And what about Y?", model="none")  # a follow-up

A run looks in your library first and reuses the quotes your earlier runs verified
(docs/library.md, "Reuse"); ``use_library=False`` turns that off for one run:

>>> report = deepresearch.research("What is X?", model="none", use_library=False)

Recipes are looked up in the registry (``deepresearch.recipes.registry``) by name.

A run may pause for a person (issue 15): a clarifying question, its plan with
``review_plan=True``, its verified findings before writing with
``review_findings=True``, or its finished report with ``review_report=True`` (approve, edit
sentences, each audited again, or feedback for one rewrite). ``research_events`` yields an ``input_requested`` event; answer it
with ``stream.reply(...)`` inside the loop and the same run goes on. ``research`` takes an
``on_input`` function that answers, or raises ``InputRequired`` (with ``.request``) and
the run waits, checkpointed, until ``deepresearch.reply(run_id, answer)``:

>>> report = deepresearch.research("Tell me about Mercury", on_input=lambda asked: "the planet")
>>> report = deepresearch.reply(run_id, {"action": "edit", "sub_questions": ["..."]})
>>> report = deepresearch.reply(run_id, {"action": "drop", "drop": ["q1-e2"]})
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel

from deepresearch.core.ids import check_run_id
from deepresearch.core.sanitize import normalize_question
from deepresearch.errors import InputRequired, InvalidInput
from deepresearch.events import Sink
from deepresearch.fetch.base import Fetcher
from deepresearch.models import EvalResult, Report, RunEvent
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.registry import evaluator, followups, get_recipe
from deepresearch.runner import run_recipe as _run_recipe
from deepresearch.runner import run_research
from deepresearch.search.base import SearchProvider
from deepresearch.settings import Settings, load_settings
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import Role

#: answers what a paused run asks: text for a clarification, a plan decision
#: (``{"action": "approve"}``, or ``"edit"`` with ``brief`` / ``sub_questions``) for a plan
OnInput = Callable[[InputRequest], Any | Awaitable[Any]]


async def research_async(
    question: str,
    *,
    settings: Settings | None = None,
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search_provider: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    run_id: str | None = None,
    on_input: OnInput | None = None,
    **options: Any,
) -> Report:
    """Research ``question`` and return the report. ``options`` are Settings fields
    (``model="none"``, ``search="local"``, ``corpus_dir=...``, ``depth="quick"``,
    ``review_plan=True``, ``review_findings=True``, ``review_report=True``...); ``run_id`` names the run (default: a new id). When the run
    asks something, ``on_input`` answers it; without one, ``InputRequired`` is raised and
    the run waits for :func:`reply_async`."""
    question = normalize_question(question)
    run_id = check_run_id(run_id) if run_id is not None else None
    resolved = settings or load_settings(**options)
    result = await run_research(
        question,
        resolved,
        run_id=run_id,
        models=models,
        search=search_provider,
        fetcher=fetcher,
    )
    return await _answered(result, resolved, models, search_provider, fetcher, on_input)


def research(question: str, **kwargs: Any) -> Report:
    """Blocking variant of :func:`research_async`."""
    return asyncio.run(research_async(question, **kwargs))


async def reply_async(
    run_id: str,
    answer: Any,
    *,
    settings: Settings | None = None,
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search_provider: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    on_input: OnInput | None = None,
    **options: Any,
) -> Report:
    """Answer what run ``run_id`` waits for and continue it to its report: text for a
    clarifying question, ``{"action": "approve"}`` or ``{"action": "edit", "brief": ...,
    "sub_questions": [...]}`` for a plan; ``{"action": "approve"}``, ``{"action": "drop",
    "drop": [ids]}`` or ``{"action": "gap", "gap": "..."}`` for the findings. A bad answer raises ``InvalidInput`` and the
    run keeps waiting; a run that waits for nothing raises ``ConfigError``."""
    resolved = settings or load_settings(**options)
    result = await run_research(
        None,
        resolved,
        run_id=check_run_id(run_id),
        resume=True,
        reply=answer,
        models=models,
        search=search_provider,
        fetcher=fetcher,
    )
    return await _answered(result, resolved, models, search_provider, fetcher, on_input)


def reply(run_id: str, answer: Any, **kwargs: Any) -> Report:
    """Blocking variant of :func:`reply_async`."""
    return asyncio.run(reply_async(run_id, answer, **kwargs))


async def _answered(
    result: Report | InputRequest | None,
    settings: Settings,
    models: Mapping[Role, BaseChatModel | None] | None,
    search_provider: SearchProvider | None,
    fetcher: Fetcher | None,
    on_input: OnInput | None,
) -> Report:
    """The report, once ``on_input`` answered every pause; ``InputRequired`` without it."""
    while isinstance(result, InputRequest):
        if on_input is None:
            raise InputRequired(
                result,
                message=f"run {result.run_id} waits for your input ({result.kind})",
                hint=f"answer with deepresearch.reply({result.run_id!r}, ...)",
            )
        answer = on_input(result)
        if inspect.isawaitable(answer):
            answer = await answer
        result = await run_research(
            None,
            settings,
            run_id=result.run_id,
            resume=True,
            reply=answer,
            models=models,
            search=search_provider,
            fetcher=fetcher,
        )
    assert result is not None  # only stop_after pauses a run without asking
    return result


class research_events:
    """Research ``question`` while yielding its RunEvents as they happen; the report is
    on ``.report`` once iteration ends.

    When the run asks something it yields an ``input_requested`` event (``data``: kind,
    question, or brief and sub_questions); call ``.reply(answer)`` before the next step
    of the loop and the same run goes on, its events in the same stream. Unanswered, the
    iteration ends with ``.waiting`` set (the ``InputRequest``) and ``.report`` None; the
    run waits, checkpointed, for ``deepresearch.reply(run_id, answer)``."""

    def __init__(self, question: str, *, run_id: str | None = None, **kwargs: Any) -> None:
        # checked here, so a bad question fails when the stream is made, not mid-loop
        self.question = normalize_question(question)
        self.run_id = check_run_id(run_id) if run_id is not None else None
        self.kwargs = kwargs
        self.report: Report | None = None
        self.waiting: InputRequest | None = None
        self._answer: Any = None

    def reply(self, answer: Any) -> None:
        """Answer the ``input_requested`` event just yielded; checked when the run goes
        on (a bad answer raises ``InvalidInput`` from the loop)."""
        if answer is None:
            raise InvalidInput("a reply needs an answer", hint="pass the text, or a plan decision")
        self._answer = answer

    async def __aiter__(self) -> AsyncIterator[RunEvent]:
        queue: asyncio.Queue[RunEvent | None] = asyncio.Queue()
        settings = self.kwargs.pop("settings", None)
        models = self.kwargs.pop("models", None)
        search_provider = self.kwargs.pop("search_provider", None)
        fetcher = self.kwargs.pop("fetcher", None)
        resolved = settings or load_settings(**self.kwargs)

        async def run(answer: Any = None) -> Report | InputRequest | None:
            try:
                return await run_research(
                    None if answer is not None else self.question,
                    resolved,
                    run_id=self.run_id,
                    resume=answer is not None,
                    reply=answer,
                    sinks=[queue.put_nowait],
                    models=models,
                    search=search_provider,
                    fetcher=fetcher,
                )
            finally:
                queue.put_nowait(None)

        answer: Any = None
        while True:
            task = asyncio.create_task(run(answer))
            while (event := await queue.get()) is not None:
                yield event
            result = await task
            if not isinstance(result, InputRequest):
                self.report, self.waiting = result, None
                return
            self.run_id, self.waiting = result.run_id, result
            answer, self._answer = self._answer, None
            if answer is None:  # not answered in the loop: the run waits
                return


async def run_recipe_async(
    recipe: str,
    question: str | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search_provider: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    resources: Mapping[str, Any] | None = None,
    sinks: Sequence[Sink] = (),
    run_id: str | None = None,
    resume: bool = False,
    **settings_options: Any,
) -> Any:
    """Run the recipe called ``recipe`` (``"research"``, ``"employer"``) on ``question``
    and return its document (a Report, an EmployerResult). ``options`` are the recipe's
    own (its ``options_model``), ``settings_options`` Settings fields; ``resources`` the
    recipe's objects (the employer's ``lists``). With ``resume=True`` it continues run
    ``run_id`` from its last checkpoint. Unknown recipes and bad options raise
    ConfigError."""
    chosen = get_recipe(recipe)
    run_id = check_run_id(run_id) if run_id is not None else None
    resolved = settings or load_settings(**settings_options)
    request = None if resume else chosen.request(question, options or {})
    return await _run_recipe(
        chosen,
        request,
        resolved,
        run_id=run_id,
        resume=resume,
        sinks=sinks,
        models=models,
        search=search_provider,
        fetcher=fetcher,
        resources=resources,
    )


def run_recipe(recipe: str, question: str | None = None, **kwargs: Any) -> Any:
    """Blocking variant of :func:`run_recipe_async`."""
    return asyncio.run(run_recipe_async(recipe, question, **kwargs))


async def research_employer_async(
    company: str | None = None,
    *,
    role: str | None = None,
    job_description: str | None = None,
    max_queries: int = 2,
    max_result_chars: int = 1500,
    sources_per_query: int = 3,
    settings: Settings | None = None,
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search_provider: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    lists: Any = None,
    sinks: Sequence[Sink] = (),
    run_id: str | None = None,
    **options: Any,
) -> Any:
    """Research an employer (seed 000's recipe) and return its ``EmployerResult``: the
    profile, or the reason there is none (``result.early_exit``). ``options`` are
    Settings fields, as for :func:`research_async`; ``lists`` an ``EmployerLists``
    (``deepresearch.recipes.employer.load_employer_lists(FILE)``). Render the result with
    ``deepresearch.recipes.employer.render_employer(result, "md")``."""
    return await run_recipe_async(
        "employer",
        company,
        options={
            "role": role,
            "job_description": job_description,
            "max_queries": max_queries,
            "max_result_chars": max_result_chars,
            "sources_per_query": sources_per_query,
        },
        settings=settings,
        models=models,
        search_provider=search_provider,
        fetcher=fetcher,
        resources={"lists": lists} if lists is not None else None,
        sinks=sinks,
        **options,
        run_id=run_id,
    )


def research_employer(company: str | None = None, **kwargs: Any) -> Any:
    """Blocking variant of :func:`research_employer_async`."""
    return asyncio.run(research_employer_async(company, **kwargs))


async def evaluate_async(
    run_id: str,
    *,
    judge_model: str | None = None,
    settings: Settings | None = None,
    models: Mapping[Role, BaseChatModel | None] | None = None,
    **options: Any,
) -> EvalResult:
    """Evaluate finished research run ``run_id`` (``deepresearch eval``): citation
    precision and recall and sub-question coverage, and the judge's RACE scores (the
    ``judge_model``, ``models["judge"]``, else the settings' judge; ``"none"``: the figures
    only). The evaluation is stored with the run. ``options`` are Settings fields."""
    resolved = settings or load_settings(**options)
    return await evaluator()(
        resolved,
        ModelSettings.of(resolved),
        check_run_id(run_id),
        secrets=resolved.secrets(),
        judge_model=judge_model,
        models=models,
    )


def evaluate(run_id: str, **kwargs: Any) -> EvalResult:
    """Blocking variant of :func:`evaluate_async`."""
    return asyncio.run(evaluate_async(run_id, **kwargs))


async def ask_async(
    run_id: str,
    question: str,
    *,
    settings: Settings | None = None,
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search_provider: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    sinks: Sequence[Sink] = (),
    followup_id: str | None = None,
    **options: Any,
) -> Report:
    """Ask a follow-up ``question`` on finished research run ``run_id`` (any turn of a
    thread) and return the new turn's report (its ``run_id`` is the new run's,
    ``followup_id`` when given). The turn reuses the thread's pages and verified evidence
    and researches what is new, unless the question is on another topic
    (``report.followup.topic_shift``). ``options`` are Settings fields, as for
    :func:`research_async`."""
    question = normalize_question(question)
    parent = check_run_id(run_id)
    followup_id = check_run_id(followup_id) if followup_id is not None else None
    resolved = settings or load_settings(**options)
    await followups().check_parent(resolved, parent)  # a clear error before anything starts
    recipe = get_recipe("research")
    report = await _run_recipe(
        recipe,
        recipe.request(question, {"followup_of": parent}),
        resolved,
        run_id=followup_id,
        sinks=sinks,
        models=models,
        search=search_provider,
        fetcher=fetcher,
    )
    assert isinstance(report, Report)
    return report


def ask(run_id: str, question: str, **kwargs: Any) -> Report:
    """Blocking variant of :func:`ask_async`."""
    return asyncio.run(ask_async(run_id, question, **kwargs))


async def thread_async(
    run_id: str, *, settings: Settings | None = None, **options: Any
) -> list[Any]:
    """The turns (``models.thread.Turn``: run_id, turn, question, follows, topic_shift) of
    the thread run ``run_id`` belongs to, first to last."""
    storage = settings or load_settings(**options)
    return list(await followups().turns(storage, check_run_id(run_id)))


def thread(run_id: str, **kwargs: Any) -> list[Any]:
    """Blocking variant of :func:`thread_async`."""
    return asyncio.run(thread_async(run_id, **kwargs))
