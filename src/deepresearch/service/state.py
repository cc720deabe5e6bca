"""What the routes share: settings, the store, the worker pool and the notifier."""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.service.notify import Notifier
from deepresearch.service.store import JobStore, Limits
from deepresearch.service.worker import WorkerPool
from deepresearch.settings import Settings


@dataclass
class ServiceState:
    settings: Settings
    store: JobStore
    notifier: Notifier
    workers: WorkerPool

    @property
    def limits(self) -> Limits:
        return Limits(
            window_s=self.settings.submission_window_s,
            per_window=self.settings.submissions_per_window,
            ttl_s=self.settings.job_ttl_s,
        )
