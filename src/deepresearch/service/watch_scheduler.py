"""The watch scheduler (issue 25): every ``watch_tick_s`` each service process (API or
worker, ``deepresearch serve`` or ``deepresearch worker``) queues a job for every due
watch and writes the change report of every watch run whose job has ended. Both are
claimed through the database (``service/store/watches.py``), so any number of processes
may run it: a due time is queued once, and a report is written by whoever holds its
lease. A report's webhook delivery is queued with it in the database and sent by the
process's ``Outbox`` task (``watch_delivery.py``). The jobs run on the worker pool like any other; the comparison is
``core/watch_changes.py``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Callable, Mapping
from datetime import datetime

from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from deepresearch.core.watch_changes import compare, snapshot, summary_line
from deepresearch.core.watch_schedule import ScheduleError, next_due, parse_stored
from deepresearch.export.watch_report import change_json
from deepresearch.models import Report
from deepresearch.models.event_payloads import SourceFetched
from deepresearch.models.watch import ChangeReport, Watch, WatchSnapshot
from deepresearch.service.jobs import Job
from deepresearch.service.store import JobStore, Limits, WatchRun
from deepresearch.service.watch_delivery import Outbox
from deepresearch.settings_groups import ServiceSettings

log = logging.getLogger(__name__)

#: how long a process may take to write one change report before another may
REPORT_LEASE_S = 60.0
#: events read back per job for its pages' read times
_EVENTS_PAGE = 2_000


def scheduler_id() -> str:
    """This process's name on the reports it leases."""
    return f"{socket.gethostname()[:32]}-{os.getpid()}-{secrets.token_hex(3)}"


def due_after(watch: Watch, now: datetime) -> datetime:
    """The watch's next due time after ``now`` (a schedule no longer readable: in a day)."""
    try:
        return next_due(parse_stored(watch.schedule), now)
    except ScheduleError:
        log.warning("watch %s has a schedule that cannot be read: %s", watch.id, watch.schedule)
        return next_due(parse_stored("every 86400s"), now)


class WatchScheduler:
    """One process's scheduler over the shared store; ``wake`` tells this process's
    worker pool that jobs were queued."""

    def __init__(
        self,
        store: JobStore,
        service: ServiceSettings,
        wake: Callable[[], None] = lambda: None,
        *,
        name: str | None = None,
        lease_s: float = REPORT_LEASE_S,
        outbox: Outbox | None = None,
        pages: Callable[[str], Mapping[str, str]] | None = None,
    ) -> None:
        #: the text of every page a finished run read, by URL (from its checkpoint)
        self.pages = pages or (lambda _run_id: {})
        self.store = store
        self.service = service
        self.wake = wake
        self.name = name or scheduler_id()
        self.lease_s = lease_s
        #: the webhook deliveries this process sends (``watch_delivery.py``)
        self.outbox = outbox or Outbox(
            store,
            self.name,
            attempts=service.watch_webhook_attempts,
            backoff_s=service.watch_webhook_backoff_s,
        )

    def tick(self) -> tuple[int, int]:
        """One pass: (jobs queued for due watches, change reports written)."""
        # a watch's job counts against its key's submission rate limit, like any other
        # (docs/watches.md): a due time with no room is put off, never dropped
        deferred: list[tuple[Watch, float]] = []
        queued = self.store.claim_due(
            due_after, ttl_s=self.service.job_ttl_s, rate=Limits.of(self.service), deferred=deferred
        )
        for watch, job in queued:
            log.info("watch %s is due: job %s queued", watch.id, job.id)
        for watch, wait in deferred:
            log.info(
                "watch %s is due but its key is at its submission limit: put off %.0f s",
                watch.id,
                wait,
            )
        if queued:
            self.wake()
        written = 0
        while (claimed := self.store.claim_report(self.name, self.lease_s)) is not None:
            written += self.write_report(*claimed)
        return len(queued), written

    def write_report(self, run: WatchRun, watch: Watch, job: Job) -> bool:
        """The change report of ``run`` (its job ``job`` has ended), stored with the watch."""
        now = self.store.clock()
        current = self.job_snapshot(job) if job.status == "COMPLETED" else None
        if current is None:
            report = ChangeReport(
                watch_id=watch.id,
                question=watch.question,
                run_id=job.id,
                previous_run=run.previous_run,
                created_at=now,
                error=job.error or f"the job ended {job.status}",
            )
        else:
            before = self.earlier_snapshot(run.previous_run)
            report = compare(
                before,
                current,
                watch_id=watch.id,
                question=watch.question,
                created_at=now,
                pages=self.pages(job.id),
            )
        # the webhook's delivery is queued in the report's own transaction (the outbox)
        webhook = (watch.webhook_url, change_json(report)) if watch.webhook_url else None
        return self.store.finish_report(
            run,
            self.name,
            snapshot=current,
            report=report,
            summary=summary_line(report),
            webhook=webhook,
        )

    def earlier_snapshot(self, run_id: str | None) -> WatchSnapshot | None:
        """What the run a watch compares with found: kept with the watch's runs, else read
        from that job's stored result (the run a watch was started from)."""
        if run_id is None:
            return None
        kept = self.store.run_snapshot(run_id)
        if kept is not None:
            return kept
        job = self.store.get(run_id)
        return self.job_snapshot(job) if job is not None else None

    def job_snapshot(self, job: Job) -> WatchSnapshot | None:
        """A finished research job's findings, from its stored report and its events."""
        stored = self.store.result(job.id)
        if stored is None:
            return None
        try:
            report = Report.model_validate(stored[1])
        except ValidationError:  # not a research report (an employer profile, a reply)
            return None
        fetched: dict[str, datetime] = {}
        for item in self.store.events_after(job.id, 0, limit=_EVENTS_PAGE):
            if isinstance(item.event.data, SourceFetched):
                fetched.setdefault(item.event.data.url, item.event.ts)
        return snapshot(report, fetched, read=fetched)

    async def run_every(self) -> None:
        """``tick`` every ``watch_tick_s`` until cancelled, the webhook outbox beside it
        (its own task: a slow receiver never holds a pass back); a failed pass is logged."""
        every = self.service.watch_tick_s
        if every <= 0:
            return
        sender = asyncio.create_task(self.outbox.run_every(every))
        try:
            while True:
                try:
                    _, written = await run_in_threadpool(self.tick)
                    if written:
                        self.outbox.wake()
                except Exception:
                    log.exception("the watch scheduler's pass failed")
                await asyncio.sleep(every)
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender


def start(scheduler: WatchScheduler) -> asyncio.Task[None] | None:
    """The scheduler's task, or None when ``watch_tick_s`` is 0."""
    if scheduler.service.watch_tick_s <= 0:
        return None
    return asyncio.create_task(scheduler.run_every())
