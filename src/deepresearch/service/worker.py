"""The worker pool: claims queued jobs (up to ``max_concurrent_jobs`` at once), runs each
through a ``JobRunner`` (the composition root's, ``service.app.jobs``: the same runner the
CLI uses, the job's recipe from the registry), independent of any client connection, and
keeps its lease alive while it runs. The pool holds no Settings: its limits are the
``ServiceSettings`` group, and running a job is the runner's business.

* A job claimed for the second time (its worker died, or the server was stopped) resumes
  from its last checkpoint; model replies already paid for come from the response cache.
  The stage it resumes in runs again, so what it reports again (pages read, evidence
  found) is held back when an earlier attempt's stored events already said it
  (``events.once_per_fact``): a client reading the whole stream counts each fact once.
* Leases: each running job's lease is renewed every third of ``job_lease_s`` on a thread
  of the pool's own (``_leases``), never through the event loop's default thread pool,
  which the runs' own blocking work (page extraction, the response cache, store calls)
  may keep busy for seconds: a busy worker keeps its jobs.
* Cancellation: the job's flag is polled every second and a cancel request reaching this
  process cancels the run's task at once, in the middle of a stage if need be.
* Shutdown (SIGTERM): stop claiming, cancel the running tasks, and hand their jobs back to
  the queue; the next start resumes them from their checkpoints.
* The terminal event is stored in the same transaction as the terminal state, after the
  results, so a client that sees it can fetch the report.
* A run that asks a person something (issue 15) ends its task with an ``InputRequest``:
  the job becomes AWAITING_INPUT and gives its lease and slot back. The answer
  (``POST /v1/research/{id}/input``) queues it again; the worker that claims it resumes
  the run from its checkpoint with the answer (``store.last_answer``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from deepresearch.errors import DeepResearchError
from deepresearch.events import Sink, once_per_fact
from deepresearch.llm.redact import redact
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import RunCompleted
from deepresearch.models.pause import InputRequest
from deepresearch.service.jobs import Job, Outcome
from deepresearch.service.notify import Notifier
from deepresearch.service.store import JobStore
from deepresearch.service.writer import EventWriter
from deepresearch.settings_groups import ServiceSettings

log = logging.getLogger(__name__)

T = TypeVar("T")

#: events the worker stores itself, in the transaction that ends the job
_HELD_BACK = frozenset({"run_completed", "run_failed"})


#: how a job taken over or answered continues: the request id of the answer to apply and
#: the answer (both None when there is none)
Resume = tuple[str | None, Any]


class JobRunner(Protocol):
    """Runs one job's research and says what it ended with; built by the composition root,
    which holds the Settings."""

    async def run(
        self, job: Job, sink: Sink, resume: Resume | None
    ) -> Outcome | InputRequest | None:
        """Run ``job`` (from its last checkpoint when ``resume`` is given, else afresh),
        its events into ``sink``."""
        ...

    def secrets(self) -> list[str]:
        """Every configured secret, redacted from a failed job's message."""
        ...


def _without(event_type: str, sink: Sink) -> Sink:
    def forward(event: RunEvent) -> None:
        if event.type != event_type:
            sink(event)

    return forward


@dataclass
class _Running:
    job: Job
    task: asyncio.Task[Outcome | InputRequest | None]
    why_stopped: str | None = None  # "cancelled", "shutdown", "lease lost"
    held: list[RunEvent] = field(default_factory=list)
    supervisor: asyncio.Task[None] | None = None


class WorkerPool:
    def __init__(
        self,
        store: JobStore,
        service: ServiceSettings,
        notifier: Notifier,
        runner: JobRunner,
        *,
        poll_s: float = 0.5,
        check_s: float = 1.0,
    ) -> None:
        self.store = store
        self.service = service
        self.notifier = notifier
        self.runner = runner
        self.poll_s = poll_s
        self.check_s = check_s
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._running: dict[str, _Running] = {}
        self._wake = asyncio.Event()
        self._stopping = False
        self._loop_task: asyncio.Task[None] | None = None
        #: the lease keepers' store calls: one thread of their own, so that a renewal never
        #: queues behind the run's blocking work in the default thread pool
        self._leases: ThreadPoolExecutor | None = None
        self.writer: EventWriter | None = None
        #: loop time of the last claim round or lease check that reached the database
        #: (``deepresearch worker --health-file`` reads it)
        self.healthy_at = float("-inf")

    # lifecycle ----------------------------------------------------------------------
    async def start(self) -> None:
        loop = asyncio.get_running_loop()

        def stored(job_ids: set[str]) -> None:  # from the writer's thread
            for job_id in job_ids:
                loop.call_soon_threadsafe(self.notifier.publish, job_id)

        self.writer = EventWriter(self.store, stored)
        self._leases = ThreadPoolExecutor(1, thread_name_prefix="deepresearch-leases")
        self._loop_task = asyncio.create_task(self._claim_loop(), name="deepresearch-workers")

    async def stop(self) -> None:
        """Stop claiming, stop the running jobs and give them back to the queue."""
        self._stopping = True
        self._wake.set()
        supervisors = [r.supervisor for r in self._running.values() if r.supervisor]
        for running in list(self._running.values()):
            running.why_stopped = running.why_stopped or "shutdown"
            running.task.cancel()
        # each supervisor records its job's outcome (released, cancelled...) before ending
        await asyncio.gather(*supervisors, return_exceptions=True)
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
        if self.writer is not None:
            await asyncio.to_thread(self.writer.close)
        if self._leases is not None:
            self._leases.shutdown(wait=False)

    def wake(self) -> None:
        self._wake.set()

    @property
    def running_ids(self) -> list[str]:
        return list(self._running)

    def cancel(self, job_id: str) -> bool:
        """Cancel a job running in this process now; False if it runs elsewhere."""
        running = self._running.get(job_id)
        if running is None:
            return False
        running.why_stopped = "cancelled"
        running.task.cancel()
        return True

    # claiming -----------------------------------------------------------------------
    async def _claim_loop(self) -> None:
        expire_every_s = min(30.0, self.service.job_ttl_s / 4)
        next_expiry = 0.0
        loop = asyncio.get_running_loop()
        while not self._stopping:
            try:
                if loop.time() >= next_expiry:
                    await asyncio.to_thread(self.store.expire)
                    self.healthy_at = loop.time()
                    next_expiry = loop.time() + expire_every_s
                while len(self._running) < self.service.max_concurrent_jobs:
                    claimable = await asyncio.to_thread(self.store.has_claimable)
                    self.healthy_at = loop.time()
                    if not claimable:
                        break  # a read; the claim below is a write
                    job = await asyncio.to_thread(
                        self.store.claim, self.worker_id, self.service.job_lease_s
                    )
                    if job is None or self._stopping:
                        if job is not None:
                            await asyncio.to_thread(self.store.release, job.id, self.worker_id)
                        break
                    if job.cancel_requested:  # cancelled while its server was down
                        await asyncio.to_thread(
                            self.store.finish,
                            job.id,
                            self.worker_id,
                            "CANCELLED",
                            message="Cancelled",
                            ttl_s=self.service.job_ttl_s,
                        )
                        continue
                    self._start(job)
            except Exception:  # the database may be briefly unavailable: try again
                log.exception("claiming jobs failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll_s)
            self._wake.clear()

    def _start(self, job: Job) -> None:
        running = _Running(job, asyncio.create_task(self._execute(job)))
        self._running[job.id] = running
        running.supervisor = asyncio.create_task(self._supervise(running), name=f"job-{job.id}")

    # one job ------------------------------------------------------------------------
    async def _execute(self, job: Job) -> Outcome | InputRequest | None:
        def store(event: RunEvent) -> None:
            if event.type in _HELD_BACK:
                # only finish() stores a terminal event, under the lease; an attempt no
                # longer supervised here (its lease lost) must not store one of its own
                running = self._running.get(job.id)
                if running is not None and running.job.attempts == job.attempts:
                    running.held.append(event)
                return
            assert self.writer is not None
            self.writer.put(job.id, event)

        sink: Sink = store
        resume: Resume | None = None
        if job.attempts > 1:  # what earlier attempts announced is not announced again
            announced = await asyncio.to_thread(self._announced, job.id)
            sink = once_per_fact(store, announced)
            if any(event.type == "run_started" for event in announced):
                # an attempt that died before the run's first checkpoint starts it afresh:
                # its stream already says the run started
                sink = _without("run_started", sink)
            # taken over, or answered: continue from the last checkpoint
            resume = await asyncio.to_thread(self.store.last_answer, job.id) or (None, None)
        return await self.runner.run(job, sink, resume)

    def _announced(self, job_id: str) -> list[RunEvent]:
        """Every event stored for the job so far."""
        events: list[RunEvent] = []
        while batch := self.store.events_after(job_id, events[-1].seq if events else 0):
            events += [item.event for item in batch]
        return events

    async def _supervise(self, running: _Running) -> None:
        job = running.job
        keeper = asyncio.create_task(self._keep_lease(running))
        try:
            outcome = await running.task
            await self._completed(running, outcome)
        except asyncio.CancelledError:
            await self._stopped(running)
        except DeepResearchError as exc:
            message = redact(str(exc), self.runner.secrets())
            await self._end(running, "FAILED", f"Research failed: {message}", error=message)
        except Exception as exc:
            log.exception("job %s failed unexpectedly", job.id)
            message = f"the run failed unexpectedly ({type(exc).__name__})"
            await self._end(running, "FAILED", f"Research failed: {message}", error=message)
        finally:
            keeper.cancel()
            # this process may have claimed the job again (its lease had lapsed): the
            # newer attempt's entry stays
            if self._running.get(job.id) is running:
                del self._running[job.id]
            self.notifier.publish(job.id)
            self._wake.set()

    async def _completed(self, running: _Running, outcome: Outcome | InputRequest | None) -> None:
        if isinstance(outcome, InputRequest):  # a person's turn: no lease, no slot
            await self._flush()  # input_requested is stored before the status says so
            await asyncio.to_thread(
                self.store.await_input,
                running.job.id,
                self.worker_id,
                outcome,
                self.service.input_timeout_s,
            )
            return
        if outcome is None:
            await self._end(
                running, "FAILED", "The run stopped without a report", error="no report"
            )
            return
        await asyncio.to_thread(self.store.save_result, running.job.id, outcome)
        held = next((e for e in running.held if isinstance(e.data, RunCompleted)), None)
        completed = held.data if held is not None else outcome.completed
        await self._end(
            running,
            "COMPLETED",
            held.message if held else "Research finished",
            completed=completed if isinstance(completed, RunCompleted) else None,
        )

    async def _stopped(self, running: _Running) -> None:
        why = running.why_stopped or "shutdown"
        if why == "cancelled":
            await self._end(running, "CANCELLED", "Cancelled", error=None)
        elif why == "shutdown":
            await self._flush()
            await asyncio.to_thread(self.store.release, running.job.id, self.worker_id)
        # "lease lost": another worker owns the job now; leave it alone

    async def _end(
        self,
        running: _Running,
        status: Any,
        message: str,
        *,
        error: str | None = None,
        completed: RunCompleted | None = None,
    ) -> None:
        await self._flush()  # the terminal event comes after every event of the run
        await asyncio.to_thread(
            self.store.finish,
            running.job.id,
            self.worker_id,
            status,
            message=message,
            error=error,
            ttl_s=self.service.job_ttl_s,
            completed=completed,
        )

    async def _flush(self) -> None:
        if self.writer is not None:
            await self.writer.flush()

    async def _keep_lease(self, running: _Running) -> None:
        """Renew the lease every third of its length (a write) and look at the cancel flag
        every ``check_s`` (a read) while the job runs, on the lease keepers' own thread."""
        loop = asyncio.get_running_loop()
        lease_s = self.service.job_lease_s
        renew_every = lease_s / 3
        renewed = loop.time()
        while not running.task.done():
            await asyncio.sleep(min(self.check_s, renew_every))
            try:
                if loop.time() - renewed >= renew_every:
                    # the lease runs from when the renewal starts (the store's clock)
                    started = loop.time()
                    job = await self._lease_call(
                        self.store.renew, running.job.id, self.worker_id, lease_s
                    )
                    renewed = started
                else:
                    job = await self._lease_call(self.store.get, running.job.id)
                    if job is not None and job.lease_owner != self.worker_id:
                        job = None
                self.healthy_at = loop.time()
            except Exception:
                log.exception("checking the lease of %s failed", running.job.id)
                continue
            if job is None:
                running.why_stopped = "lease lost"
                running.task.cancel()
            elif job.cancel_requested:
                running.why_stopped = "cancelled"
                running.task.cancel()

    async def _lease_call(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` on the lease keepers' thread."""
        assert self._leases is not None, "the pool is not started"
        return await asyncio.get_running_loop().run_in_executor(self._leases, call, *args)
