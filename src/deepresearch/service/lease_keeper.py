"""Keeping a worker's leases alive while its jobs run, in a way nothing else in the process
can starve: one thread of its own (not the event loop, not its default thread pool) that,
every ``check_s``, looks at every job the worker runs in one query and, every third of
the lease, renews their leases (a short transaction each), on a database connection of its own
(``store`` is built on an engine nobody else draws from). A run that blocks the event loop,
a default thread pool busy with page extraction and store calls, or a connection pool
drained by event streams therefore cannot make a renewal late, so a busy worker's job is
not taken over while it still runs.

What the keeper finds (a job no longer held, a cancel asked) is handed to the event loop
through ``verdict``, which acts on it there."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Literal

from sqlalchemy import Engine

from deepresearch.service.db import make_engine
from deepresearch.service.store import JobStore

log = logging.getLogger(__name__)

#: why the keeper stops a job: another worker holds it now, or its owner cancelled it
Verdict = Literal["lease lost", "cancelled"]


class LeaseKeeper:
    def __init__(
        self,
        store: JobStore,
        worker_id: str,
        lease_s: float,
        check_s: float,
        verdict: Callable[[str, Verdict], None],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.store = store
        self.worker_id = worker_id
        self.lease_s = lease_s
        self.check_s = min(check_s, lease_s / 3)
        self.verdict = verdict
        self.loop = loop
        #: monotonic time of the last round that reached the database
        self.healthy_at = float("-inf")
        self._jobs: set[str] = set()
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deepresearch-leases", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self.check_s + 5)

    def hold(self, job_id: str) -> None:
        """Keep ``job_id``'s lease from now on (its claim just leased it)."""
        with self._guard:
            self._jobs.add(job_id)

    def drop(self, job_id: str) -> None:
        with self._guard:
            self._jobs.discard(job_id)

    def _run(self) -> None:
        every = self.lease_s / 3
        renewed = time.monotonic()
        # wake for the next look, or sooner for the next renewal: one is never a round late
        while not self._stop.wait(min(self.check_s, max(0.0, renewed + every - time.monotonic()))):
            with self._guard:
                jobs = set(self._jobs)
            # the lease runs from when the renewal starts (the store's clock)
            started = time.monotonic()
            renew = started - renewed >= every
            try:
                states = self.store.keep_leases(
                    jobs, self.worker_id, self.lease_s if renew else None
                )
            except Exception:  # the database may be briefly unavailable: next round
                log.exception("keeping the leases of %s failed", sorted(jobs))
                self._stop.wait(self.check_s)
                continue
            self.healthy_at = time.monotonic()
            if renew:
                renewed = started
            for job_id, (held, cancel) in states.items():
                if not held or cancel:
                    why: Verdict = "lease lost" if not held else "cancelled"
                    self.loop.call_soon_threadsafe(self.verdict, job_id, why)


def own_engine(engine: Engine) -> Engine:
    """A second engine on ``engine``'s database, so the keeper never waits for a
    connection behind everything else (one thread: it opens one connection); an
    in-memory SQLite database exists only on its engine, which is then shared."""
    url = engine.url
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return engine
    return make_engine(url.render_as_string(hide_password=False))
