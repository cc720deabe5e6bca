"""News of stored events from every process sharing a PostgreSQL database: each event
write sends the ids of its jobs on ``CHANNEL`` (``NOTIFY``, delivered when it commits;
``store/events.py``), and ``EventListener`` hears them on a connection of its own, on a
thread of its own, and wakes the streams of those jobs in this process (``Notifier``).
A stream then sees an event a worker on another machine stored at once, instead of at
its next look, and a quiet stream looks less often while the listener is up
(``Notifier.poll_s``). When the connection is lost the listener says so (streams look
every second again) and connects anew; nothing depends on a notification arriving."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from deepresearch.service.store.events import CHANNEL
from deepresearch.sqldb import libpq_url

log = logging.getLogger(__name__)

#: how long the listener's thread waits for news before it looks at its stop flag
WAIT_S = 0.25
#: the pause before connecting again after the connection was lost
RECONNECT_S = 1.0


def job_ids(payload: str) -> set[str]:
    """The job ids a notification names."""
    return {part for part in payload.split(",") if part}


class EventListener:
    """``LISTEN`` on ``CHANNEL`` with a connection of its own; ``on_jobs(ids)`` is called
    on the event loop it was started from for every notification."""

    def __init__(self, database_url: str, on_jobs: Callable[[set[str]], None]) -> None:
        self.url = libpq_url(database_url)
        self.on_jobs = on_jobs
        self.listening = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="deepresearch-listen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * WAIT_S + 1)

    def _run(self) -> None:
        try:
            import psycopg
        except ImportError:  # a PostgreSQL engine has it (the postgres extra): never here
            log.warning("event notifications need psycopg (the postgres extra)")
            return
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.listening = True
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=WAIT_S):
                            self._deliver(job_ids(note.payload))
            except Exception as exc:  # the server went away: streams look every second
                if not self._stop.is_set():
                    log.warning(
                        "event notifications lost (%s); connecting again", type(exc).__name__
                    )
            finally:
                self.listening = False
            self._stop.wait(RECONNECT_S)

    def _deliver(self, ids: set[str]) -> None:
        loop = self._loop
        if ids and loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.on_jobs, ids)
