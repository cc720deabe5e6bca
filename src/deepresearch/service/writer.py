"""Stores run events off the event loop: a run emits events from the loop (synchronously,
from its stages); they are queued here and written by one thread, in order, many per
transaction. Before a job ends the worker flushes, so the terminal event always comes
after every event of the run. Events still queued when the process is killed are lost;
the run's state is in its checkpoints, not in its events."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from deepresearch.models import RunEvent
from deepresearch.service.store import JobStore

log = logging.getLogger(__name__)

MAX_BATCH = 500
RETRIES = 3


@dataclass(frozen=True)
class _Flush:
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[None]


_Item = tuple[str, RunEvent] | _Flush | None


class EventWriter:
    def __init__(self, store: JobStore, on_stored: Callable[[set[str]], None]) -> None:
        """``on_stored(job_ids)`` is called from the writer thread after each batch."""
        self.store = store
        self.on_stored = on_stored
        self._queue: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="deepresearch-events", daemon=True)
        self._thread.start()

    def put(self, job_id: str, event: RunEvent) -> None:
        self._queue.put((job_id, event))

    async def flush(self) -> None:
        """Return once every event queued before this call is stored."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._queue.put(_Flush(loop, done))
        await done

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while True:
            batch = [self._queue.get()]
            while len(batch) < MAX_BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            events = [item for item in batch if isinstance(item, tuple)]
            if events:
                self._store(events)
            for item in batch:
                if isinstance(item, _Flush) and not item.loop.is_closed():
                    item.loop.call_soon_threadsafe(_resolve, item.done)
            if any(item is None for item in batch):
                return

    def _store(self, events: list[tuple[str, RunEvent]]) -> None:
        for attempt in range(RETRIES):
            try:
                self.store.append_events(events)
                break
            except KeyError:  # a job deleted under it: store the others
                events = [e for e in events if self.store.get(e[0]) is not None]
            except Exception:
                log.exception("storing %d run events failed (attempt %d)", len(events), attempt + 1)
                time.sleep(0.2 * (attempt + 1))
        else:
            log.error("dropped %d run events after %d attempts", len(events), RETRIES)
            return
        try:
            self.on_stored({job_id for job_id, _ in events})
        except Exception:
            log.exception("notifying event readers failed")


def _resolve(done: asyncio.Future[None]) -> None:
    if not done.done():
        done.set_result(None)
