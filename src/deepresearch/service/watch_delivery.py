"""Webhook deliveries from the outbox (issue 25): a change report to POST is a row of the
service database (``service/store/deliveries.py``), queued in the transaction that writes
the report. Every service process runs an ``Outbox`` task beside its scheduler: it claims
the deliveries due now, one at a time, makes one signed attempt of each
(``fetch/webhook.py``) and records the outcome: delivered; pending again after the
backoff (``watch_webhook_backoff_s``, doubling); or failed, with the last error, once
``watch_webhook_attempts`` are spent or the receiver refused it (a 4xx but 408 and 429).

The task is separate from the scheduler's pass (which only wakes it), so a slow or dead
receiver never delays a due watch. A delivery outlives its process: one still pending
when the process stops (or is killed mid-POST, its claim then lapsing after
``DELIVERY_LEASE_S``) is sent by another process or the restarted one."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

from starlette.concurrency import run_in_threadpool

from deepresearch.fetch.guard import Resolver
from deepresearch.fetch.webhook import Attempt, attempt
from deepresearch.resilience.retry import backoff_delay
from deepresearch.service.store import Delivery, JobStore

log = logging.getLogger(__name__)

#: how long a claimed delivery is the claimer's before another process may send it: well
#: over one attempt's timeout, so a live claimer is never raced
DELIVERY_LEASE_S = 60.0
#: one attempt's timeout
ATTEMPT_TIMEOUT_S = 10.0
#: the longest wait between two attempts
BACKOFF_CAP_S = 3600.0


class Outbox:
    """This process's sender of the outbox's due deliveries."""

    def __init__(
        self,
        store: JobStore,
        name: str,
        *,
        attempts: int = 8,
        backoff_s: float = 10.0,
        lease_s: float = DELIVERY_LEASE_S,
        resolver: Resolver | None = None,
    ) -> None:
        self.store = store
        self.name = name
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.lease_s = lease_s
        self.resolver = resolver
        self._wake: asyncio.Event | None = None

    def wake(self) -> None:
        """Look for due deliveries now (the scheduler wrote a report), not at the tick."""
        if self._wake is not None:
            self._wake.set()

    async def send_due(self) -> int:
        """Send every delivery due now; how many were tried."""
        tried = 0
        while (
            claimed := await run_in_threadpool(self.store.claim_delivery, self.name, self.lease_s)
        ) is not None:
            await self.send(claimed)
            tried += 1
        return tried

    async def send(self, delivery: Delivery) -> None:
        """One attempt of ``delivery``, recorded; a cancelled attempt hands it back."""
        try:
            if delivery.secret:
                result = await attempt(
                    delivery.url,
                    delivery.body,
                    delivery.secret,
                    resolver=self.resolver,
                    timeout_s=ATTEMPT_TIMEOUT_S,
                )
            else:
                result = Attempt(delivered=False, error="the watch has no signing secret")
        except asyncio.CancelledError:
            # the process is stopping: pending again at once, for whoever runs next
            # (the receiver may have taken it already: a webhook is at least once);
            # if this write fails too, the claim lapses after its lease instead
            try:
                self.store.finish_delivery(
                    delivery,
                    self.name,
                    delivered=False,
                    retry_at=self.store.clock(),
                    error="the sending process stopped",
                )
            except Exception:
                log.warning("watch %s: a stopped delivery waits for its lease", delivery.watch_id)
            raise
        await run_in_threadpool(self.record, delivery, result)

    def record(self, delivery: Delivery, result: Attempt) -> None:
        retry_at = None
        if not result.delivered and result.retry and delivery.attempt < self.attempts:
            wait = backoff_delay(
                delivery.attempt - 1, base_s=self.backoff_s, cap_s=BACKOFF_CAP_S, jitter=0.5
            )
            retry_at = self.store.clock() + timedelta(seconds=wait)
        kept = self.store.finish_delivery(
            delivery, self.name, delivered=result.delivered, retry_at=retry_at, error=result.error
        )
        if not kept:
            log.warning("watch %s: a delivery's claim lapsed before it ended", delivery.watch_id)
        elif result.delivered:
            log.info("watch %s: change report delivered to its webhook", delivery.watch_id)
        elif retry_at is None:
            log.warning(
                "watch %s: webhook delivery failed after %d attempts: %s",
                delivery.watch_id,
                delivery.attempt,
                result.error,
            )

    async def run_every(self, every: float) -> None:
        """``send_due`` when woken or every ``every`` seconds, until cancelled."""
        self._wake = asyncio.Event()
        while True:
            try:
                await self.send_due()
            except Exception:
                log.exception("the watch webhook outbox's pass failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), every)
            self._wake.clear()
