"""How this server runs a job, built from its Settings: the composition root's side of the
worker pool (``worker.JobRunner``) and of the routes' checks (``state.JobChecks``).

A job's settings are the server's with the job's options (the recipe's own options aside);
the runner is the one the CLI uses (``run_recipe``), the job's recipe from the registry.
``Runtime`` hands in components built elsewhere (tests, benchmarks, a program embedding
the service), which then are neither built nor checked from the Settings."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from deepresearch.compose.ports import library_opener
from deepresearch.errors import DeepResearchError, RunNotFound
from deepresearch.events import Sink
from deepresearch.export.formats import render_text
from deepresearch.fetch.base import Fetcher
from deepresearch.llm.providers import build_role_models
from deepresearch.models import EvalResult
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.registry import evaluator, followups, get_recipe
from deepresearch.runner import run_recipe
from deepresearch.search.base import SearchProvider
from deepresearch.search.none import NoSearch
from deepresearch.search.registry import build_search_provider
from deepresearch.service.jobs import Job, Outcome
from deepresearch.service.notify import Notifier
from deepresearch.service.preflight import Check, Preflight
from deepresearch.service.store import JobStore
from deepresearch.service.worker import Resume, WorkerPool
from deepresearch.settings import Settings
from deepresearch.settings_groups import ModelSettings, ServiceSettings, SettingsGroups
from deepresearch.settings_values import Role


@dataclass
class Runtime:
    """Components a job uses instead of the ones Settings would build (tests, benchmarks,
    embedding the service in a program that has its own)."""

    models: Mapping[Role, BaseChatModel | None] | None = None
    search: SearchProvider | None = None
    fetcher: Fetcher | None = None


def job_settings(settings: Settings, recipe: str, options: Mapping[str, Any]) -> Settings:
    """The server's settings with a job's options (the recipe's own options aside)."""
    own = get_recipe(recipe).options_model.model_fields
    run_options = {k: v for k, v in options.items() if k not in own}
    return settings.model_copy(update=run_options)


class RecipeJobs:
    """Runs a job through the runner with the job's settings (the worker pool's
    ``JobRunner``)."""

    def __init__(self, settings: Settings, runtime: Runtime | None = None) -> None:
        self.settings = settings
        self.runtime = runtime or Runtime()

    def secrets(self) -> list[str]:
        return self.settings.secrets()

    async def run(
        self, job: Job, sink: Sink, resume: Resume | None
    ) -> Outcome | InputRequest | None:
        recipe = get_recipe(job.recipe)
        own = recipe.options_model.model_fields
        settings = job_settings(self.settings, job.recipe, job.options)
        common: dict[str, Any] = {
            "sinks": [sink],
            "models": self.runtime.models,
            "search": self.runtime.search,
            "fetcher": self.runtime.fetcher,
            "owner": job.owner,  # its key's library; the job store keeps its record
        }
        document = None
        resumed = False
        if resume is not None:  # taken over, or answered: continue from the last checkpoint
            reply_to, reply = resume
            try:
                document = await run_recipe(
                    recipe,
                    None,
                    settings,
                    run_id=job.id,
                    resume=True,
                    reply=reply,
                    reply_to=reply_to,
                    **common,
                )
                resumed = True
            except RunNotFound:  # it died before its first checkpoint: start afresh
                resumed = False
        if not resumed:
            request = recipe.request(
                job.question, {k: v for k, v in job.options.items() if k in own}
            )
            document = await run_recipe(recipe, request, settings, run_id=job.id, **common)
        if document is None or isinstance(document, InputRequest):
            return document
        completion = recipe.completion(document, fetches=0)
        return Outcome(
            completion.kind,
            document.model_dump(mode="json"),
            render_text(recipe, document, "md"),
            completion.evidence,
            completion.report,
            completion.completed_event,
        )


class ServerJobChecks:
    """The routes' ``JobChecks``: the refusal of a job this server could not run (its
    model or search provider has no key here), the evaluation of a finished one, and the
    thread of its run (read where the server keeps checkpoints: a job's options never
    move them)."""

    def __init__(self, settings: Settings, runtime: Runtime | None = None) -> None:
        self.settings = settings
        self.runtime = runtime or Runtime()
        # only handed to the providers' constructors, which keep it; never used to send
        client = httpx.AsyncClient()

        def search(job: Settings) -> object:
            return build_search_provider(
                job,
                client,
                data_dir=job.data_dir,
                local_factory=_no_index,
                # built to be checked, never searched: it opens nothing
                library_factory=library_opener(None, SettingsGroups.of(job), None),
            )

        def role_models(job: Settings) -> object:
            return build_role_models(ModelSettings.of(job))

        models: Check[Settings] | None = role_models if self.runtime.models is None else None
        self.preflight = Preflight(models, search if self.runtime.search is None else None)

    def refuse(self, recipe: str, options: Mapping[str, Any]) -> None:
        self.preflight.check(job_settings(self.settings, recipe, options))

    async def evaluate(self, job: Job) -> EvalResult:
        settings = job_settings(self.settings, job.recipe, job.options)
        # the default recipe's evaluation reads the run and says when it is another
        # recipe's ("only research reports are evaluated")
        return await evaluator()(
            settings,
            ModelSettings.of(settings),
            job.id,
            secrets=settings.secrets(),
            models=self.runtime.models,
        )

    async def check_parent(self, run_id: str) -> None:
        await followups().check_parent(self.settings, run_id)


def _no_index(corpus: Path) -> SearchProvider:
    """The local provider's folder is checked; its index is built by the job, not here."""
    return NoSearch()


def worker_pool(
    store: JobStore,
    settings: Settings,
    notifier: Notifier,
    runtime: Runtime | None = None,
    **timing: float,
) -> WorkerPool:
    """The worker pool of ``settings``: its limits, its identity across restarts (the
    data folder's ``workers/``), and its jobs run by ``RecipeJobs`` (``timing``: the
    pool's ``poll_s`` and ``check_s``)."""
    return WorkerPool(
        store,
        ServiceSettings.of(settings),
        notifier,
        RecipeJobs(settings, runtime),
        identity_dir=settings.data_dir / "workers",
        **timing,
    )


def page_texts(settings: Settings) -> Callable[[str], dict[str, str]]:
    """What a watch's scheduler reads of a finished research run (``watch_scheduler``):
    the text of every page it read, by URL, from its checkpoint (where the server keeps
    them); nothing when the run cannot be read (then a missing quote counts as gone)."""

    def read(run_id: str) -> dict[str, str]:
        try:
            parent = asyncio.run(followups().store(settings).parent(run_id))
        except DeepResearchError:
            return {}
        return {s.url: s.text for s in parent.sources.values() if s.fetched and s.text}

    return read
