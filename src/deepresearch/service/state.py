"""What the routes share: the service's settings, the store, the worker pool, the notifier
and what is done with a job's own settings and its run (the refusal check, the
evaluation, the thread a follow-up continues).

Nothing here imports the worker, the runner or the Settings: the composition root
(``service.app``) builds the pool and the job checks and hands them in, so the request
handlers load neither the runner nor the recipes' graphs."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool

from deepresearch.librarydb.store import LibraryStore
from deepresearch.models import EvalResult
from deepresearch.service.jobs import Job
from deepresearch.service.notify import Notifier
from deepresearch.service.store import JobStore, Limits
from deepresearch.service.store.keys import ApiKey, hash_token
from deepresearch.settings_groups import ExportSettings, ServiceSettings

KEYS_RECHECK_S = 2.0
#: keys remembered at once (past it the memory starts afresh)
MAX_KNOWN_KEYS = 1024


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
    #: keys found lately, by their token's hash: (when, key)
    _keys: dict[str, tuple[float, ApiKey]] = field(default_factory=dict)

    async def keys_required(self) -> bool:
        """Whether any API key exists; looked up at most every two seconds, so a key
        created (or the last one revoked) takes effect within two seconds."""
        checked_at, required = self._keys_checked
        now = time.monotonic()
        if now - checked_at > KEYS_RECHECK_S:
            required = await run_in_threadpool(self.store.has_keys)
            self._keys_checked = (now, required)
        return required

    async def key_for(self, token: str) -> ApiKey | None:
        """The valid key ``token`` names, or None. A key found is remembered for two
        seconds (a revocation takes effect within them, like a key's creation above), so
        a client's requests do not each queue a store read for the thread pool; an
        unknown token is looked up every time and never remembered."""
        digest = hash_token(token)
        now = time.monotonic()
        known = self._keys.get(digest)
        if known is not None and now - known[0] <= KEYS_RECHECK_S:
            return known[1]
        key = await run_in_threadpool(self.store.key_for_token, token)
        if key is None:
            self._keys.pop(digest, None)
            return None
        if len(self._keys) >= MAX_KNOWN_KEYS:
            self._keys.clear()
        self._keys[digest] = (now, key)
        return key

    @property
    def limits(self) -> Limits:
        return Limits.of(self.service)
