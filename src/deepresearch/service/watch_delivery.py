"""Webhook deliveries off the scheduler's path (issue 25): change reports are queued to
one daemon thread per process, which POSTs each through ``fetch/webhook.py`` (signed,
retried with backoff). The scheduler only enqueues, so a slow or dead receiver never
delays a due watch. A delivery still queued when the process stops is lost; the report
itself is stored with the watch and in its Atom feed."""

from __future__ import annotations

import logging
import queue
import threading

from deepresearch.fetch.guard import Resolver
from deepresearch.fetch.webhook import deliver

log = logging.getLogger(__name__)

#: (url, secret, body)
Delivery = tuple[str, str, bytes]


class Deliveries:
    """A queue and the thread that empties it (started on the first delivery)."""

    def __init__(self, resolver: Resolver | None = None, *, attempts: int = 5) -> None:
        self.resolver = resolver
        self.attempts = attempts
        self._queue: queue.Queue[Delivery] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        #: deliveries the receiver took, and those given up (for tests and logs)
        self.delivered = 0
        self.failed = 0

    def send(self, url: str, secret: str, body: bytes) -> None:
        """Queue one delivery; returns at once."""
        self._queue.put((url, secret, body))
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="watch-webhooks", daemon=True
                )
                self._thread.start()

    def join(self) -> None:
        """Wait until every queued delivery was tried (tests)."""
        self._queue.join()

    def _run(self) -> None:
        while True:
            url, secret, body = self._queue.get()
            try:
                if deliver(url, body, secret, attempts=self.attempts, resolver=self.resolver):
                    self.delivered += 1
                else:
                    self.failed += 1
                    log.warning("a watch's webhook did not take its change report")
            except Exception:
                self.failed += 1
                log.exception("a watch's webhook delivery failed")
            finally:
                self._queue.task_done()
