"""What the routes share: settings, the store, the worker pool, the notifier and the
submission checks."""

from __future__ import annotations

import time
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool

from deepresearch.service.notify import Notifier
from deepresearch.service.preflight import Preflight
from deepresearch.service.store import JobStore, Limits
from deepresearch.service.worker import WorkerPool
from deepresearch.settings import Settings

KEYS_RECHECK_S = 2.0


@dataclass
class ServiceState:
    settings: Settings
    store: JobStore
    notifier: Notifier
    workers: WorkerPool
    preflight: Preflight
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
        return Limits(
            window_s=self.settings.submission_window_s,
            per_window=self.settings.submissions_per_window,
            ttl_s=self.settings.job_ttl_s,
        )
