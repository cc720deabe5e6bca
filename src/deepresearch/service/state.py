"""What the routes share: the service's settings, the store, the worker pool, the notifier
and what is done with a job's own settings and its run (the refusal check, the
evaluation, the thread a follow-up continues).

Nothing here imports the worker, the runner or the Settings: the composition root
(``service.app``) builds the pool and the job checks and hands them in, so the request
handlers load neither the runner nor the recipes' graphs."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool

from deepresearch.librarydb.store import LibraryStore
from deepresearch.models import EvalResult
from deepresearch.models.thread import Turn
from deepresearch.service.jobs import Job
from deepresearch.service.notify import Notifier
from deepresearch.service.store import JobStore, Limits
from deepresearch.settings_groups import ExportSettings, ServiceSettings

KEYS_RECHECK_S = 2.0


class Workers(Protocol):
    """The worker pool of this process, as the routes see it."""

    @property
    def running_ids(self) -> list[str]: ...

    def wake(self) -> None: ...

    def cancel(self, job_id: str) -> bool: ...


class JobChecks(Protocol):
    """What the routes do with a job's own settings (the server's, with the job's options)."""

    def refuse(self, recipe: str, options: Mapping[str, Any]) -> None:
        """Raise the 422 problem for a job the server could not run (call it off the loop)."""
        ...

    async def evaluate(self, job: Job) -> EvalResult:
        """Evaluate the finished job's report with the job's judge model."""
        ...

    async def check_parent(self, run_id: str) -> None:
        """Raise DeepResearchError unless run ``run_id`` is a finished research run a
        follow-up can continue (a reply rather than a report, a lost checkpoint)."""
        ...

    async def turns(self, run_id: str) -> list[Turn]:
        """Every turn of the thread run ``run_id`` belongs to, first to last."""
        ...


@dataclass
class ServiceState:
    service: ServiceSettings
    export: ExportSettings
    store: JobStore
    notifier: Notifier
    workers: Workers
    jobs: JobChecks
    #: the keys' libraries (issue 25; ``library_routes.py``); None: not opened
    library: LibraryStore | None = None
    _keys_checked: tuple[float, bool] = (-1e9, False)

    async def keys_required(self) -> bool:
        """Whether any API key exists; looked up at most every two seconds, so a key
        created (or the last one revoked) takes effect within two seconds."""
        checked_at, required = self._keys_checked
        now = time.monotonic()
        if now - checked_at > KEYS_RECHECK_S:
            required = await run_in_threadpool(self.store.has_keys)
            self._keys_checked = (now, required)
        return required

    @property
    def limits(self) -> Limits:
        return Limits.of(self.service)
