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
* Leases: the running jobs' leases are renewed every third of ``job_lease_s`` by a
  ``LeaseKeeper``, a thread of its own on a database connection of its own: neither a
  busy event loop, nor the runs' blocking work in the default thread pool, nor store
  calls holding the engine's connections can make a renewal late, so a busy worker keeps
  its jobs.
* A restarted process (``identity_dir``: its data folder's ``workers/``) knows the jobs
  its earlier life held (``service.identity``) and claims them before anything else, at
  once: their lease need not lapse, that life is over.
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
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from deepresearch.errors import DeepResearchError
from deepresearch.events import Sink, once_per_fact
from deepresearch.llm.redact import redact
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import RunCompleted
from deepresearch.models.pause import InputRequest
from deepresearch.service.identity import Life, new_worker_id, take_life
from deepresearch.service.jobs import Job, Outcome
from deepresearch.service.lease_keeper import LeaseKeeper, Verdict, own_engine
from deepresearch.service.notify import Notifier
from deepresearch.service.store import JobStore
from deepresearch.service.writer import EventWriter
from deepresearch.settings_groups import ServiceSettings

log = logging.getLogger(__name__)

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
        identity_dir: Path | None = None,
    ) -> None:
        self.store = store
        self.service = service
        self.notifier = notifier
        self.runner = runner
        self.poll_s = poll_s
        self.check_s = check_s
        self.identity_dir = identity_dir
        #: this life's id; with ``identity_dir``, taken at start with the earlier lives'
        self.worker_id = new_worker_id()
        self._life: Life | None = None
        self._running: dict[str, _Running] = {}
        self._wake = asyncio.Event()
        self._stopping = False
        self._loop_task: asyncio.Task[None] | None = None
        self._keeper: LeaseKeeper | None = None
        self.writer: EventWriter | None = None
        self._claimed_at = float("-inf")

    @property
    def healthy_at(self) -> float:
        """Monotonic time of the last claim round or lease round that reached the database
        (``deepresearch worker --health-file`` reads it)."""
        kept = self._keeper.healthy_at if self._keeper is not None else float("-inf")
        return max(self._claimed_at, kept)

    # lifecycle ----------------------------------------------------------------------
    async def start(self) -> None:
        loop = asyncio.get_running_loop()

        def stored(job_ids: set[str]) -> None:  # from the writer's thread
            for job_id in job_ids:
                loop.call_soon_threadsafe(self.notifier.publish, job_id)

        self.writer = EventWriter(self.store, stored)
        if self.identity_dir is not None:
            self._life = take_life(self.identity_dir)
            if self._life is not None:
                self.worker_id = self._life.worker_id
        leases = JobStore(own_engine(self.store.engine), self.store.clock)
        self._keeper = LeaseKeeper(
            leases, self.worker_id, self.service.job_lease_s, self.check_s, self._verdict, loop
        )
        self._keeper.start()
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
        if self._keeper is not None:
            await asyncio.to_thread(self._keeper.stop)
            if self._keeper.store.engine is not self.store.engine:
                self._keeper.store.engine.dispose()
        if self._life is not None:
            self._life.end()

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
                    self._claimed_at = loop.time()
                    next_expiry = loop.time() + expire_every_s
                earlier = self._life.earlier if self._life is not None else None
                while len(self._running) < self.service.max_concurrent_jobs:
                    claimable = await asyncio.to_thread(
                        self.store.has_claimable, self.worker_id, earlier
                    )
                    self._claimed_at = loop.time()
                    if not claimable:
                        break  # a read; the claim below is a write
                    job = await asyncio.to_thread(
                        self.store.claim,
                        self.worker_id,
                        self.service.job_lease_s,
                        earlier=earlier,
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
        assert self._keeper is not None, "the pool is started"
        self._keeper.hold(job.id)
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
        try:
            outcome = await running.task
            await self._completed(running, outcome)
        except asyncio.CancelledError:
            await self._stopped(running)
        except DeepResearchError as exc:
            self._log_cause(job.id, exc)
            message = redact(str(exc), self.runner.secrets())
            await self._end(running, "FAILED", f"Research failed: {message}", error=message)
        except Exception as exc:
            log.exception("job %s failed unexpectedly", job.id)
            message = f"the run failed unexpectedly ({type(exc).__name__})"
            await self._end(running, "FAILED", f"Research failed: {message}", error=message)
        finally:
            # this process may have claimed the job again (its lease had lapsed): the
            # newer attempt's entry stays, and its lease is kept
            if self._running.get(job.id) is running:
                del self._running[job.id]
                if self._keeper is not None:
                    self._keeper.drop(job.id)
            self.notifier.publish(job.id)
            self._wake.set()

    def _log_cause(self, job_id: str, exc: DeepResearchError) -> None:
        """The traceback of what a run did not expect (the runner reports it to the job
        as "failed unexpectedly (TypeName)" and keeps the exception as the cause): the
        operator's one way to find out what it was. Secrets are taken out of it."""
        cause = exc.__cause__
        if cause is None or isinstance(cause, DeepResearchError):
            return
        trace = "".join(traceback.format_exception(cause))
        log.error("job %s failed unexpectedly:\n%s", job_id, redact(trace, self.runner.secrets()))

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

    def _verdict(self, job_id: str, why: Verdict) -> None:
        """What the lease keeper found about a running job: another worker holds it now,
        or its owner cancelled it; its run is stopped (in the event loop)."""
        running = self._running.get(job_id)
        if running is None or running.task.done():
            return  # it ended meanwhile
        running.why_stopped = running.why_stopped or why
        running.task.cancel()
