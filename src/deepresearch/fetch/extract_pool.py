"""Page extraction in worker processes, so that reading uses every core.

``extract`` is Python under the GIL (lxml, trafilatura: about 25 ms of CPU for a news
page). Run in threads, pages take turns on one core, and the event loop that fetches
the next pages waits for the same lock. ``extract_page`` sends each HTML or text page of
at least ``MIN_POOL_BYTES`` to a process pool shared by the whole process:
``extract_workers`` processes (a setting; 0 keeps extraction in a thread), started on
first use. Workers come from a forkserver that imported the extractor once, not from a
plain ``fork`` of a process that runs threads (the service); where there is no
forkserver they are spawned.

A worker runs the same ``extract`` on the same page, so the result is the one a thread
would give. What stays in a thread: pages under ``MIN_POOL_BYTES`` (the round trip to a
worker costs more than they take), PDFs (already parsed in their own sandboxed child,
``fetch.pdf_sandbox``), and every page once the pool has broken ``MAX_BREAKS`` times.

- A page still unextracted ``time_limit_s`` after it was handed to the pool fails with
  FetchError. A running worker cannot be interrupted, so the pool's workers are killed;
  pages they held are extracted in a thread and a new pool starts on the next page.
- A pool whose worker died (killed, out of memory, crashed) raises BrokenProcessPool: the
  page is extracted in a thread instead and the pool replaced on the next page.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext

from deepresearch.errors import ConfigError, FetchError
from deepresearch.fetch.base import FetchedPage
from deepresearch.fetch.extract import ExtractedDoc, extract

#: pages smaller than this are extracted in a thread: they cost it a few ms at most
MIN_POOL_BYTES = 4_096
#: a page not extracted this long after it was handed to the pool fails
TIME_LIMIT_S = 30.0
#: after this many broken pools, the process extracts in threads only
MAX_BREAKS = 3

_LOG = logging.getLogger(__name__)
_CLI = "deepresearch.cli.app"


def default_workers() -> int:
    """One worker per core, at most 4: extraction is the only work they do."""
    return min(os.cpu_count() or 1, 4)


class ExtractPool:
    """Up to ``workers`` extraction processes, started on first use and replaced when
    they break. Thread-safe: the service's runs share one."""

    def __init__(
        self,
        workers: int,
        *,
        time_limit_s: float = TIME_LIMIT_S,
        min_bytes: int = MIN_POOL_BYTES,
    ) -> None:
        if workers < 0:
            raise ValueError("workers must be 0 or more")
        self.workers = workers
        self.time_limit_s = time_limit_s
        self.min_bytes = min_bytes
        #: pools that broke under this object (a worker died)
        self.breaks = 0
        #: pages extracted by a worker process
        self.pooled = 0
        #: workers killed because a page ran over the time limit
        self.killed: list[int] = []
        self._executor: ProcessPoolExecutor | None = None
        #: the pool that has done work: its workers started, whatever their exit codes say
        #: later (a worker shut down as its pool breaks can exit with a positive code)
        self._proven: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def uses_pool(self, page: FetchedPage) -> bool:
        """True when ``page`` goes to a worker process rather than a thread."""
        if self.workers == 0 or self.breaks >= MAX_BREAKS:
            return False
        return len(page.content) >= self.min_bytes and not _is_pdf(page)

    async def extract(self, page: FetchedPage, *, max_chars: int) -> ExtractedDoc:
        """``extract(page, max_chars=max_chars)``, in a worker process when it pays."""
        if not self.uses_pool(page):
            return await asyncio.to_thread(extract, page, max_chars=max_chars)
        executor = self._running_executor()
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(executor, _extract_in_worker, page, max_chars)
        except (BrokenProcessPool, OSError, EOFError):  # EOF: the forkserver died
            return await self._instead(executor, page, max_chars)
        except RuntimeError:  # shut down meanwhile (the shared pool was replaced)
            return await asyncio.to_thread(extract, page, max_chars=max_chars)
        try:
            doc = await asyncio.wait_for(future, self.time_limit_s)
        except BrokenProcessPool:
            return await self._instead(executor, page, max_chars)
        except TimeoutError:
            self._discard(executor, kill=True)
            raise FetchError(
                f"extracting the page took longer than {self.time_limit_s:g} s"
            ) from None
        self.pooled += 1
        self._proven = executor
        return doc

    async def _instead(
        self, executor: ProcessPoolExecutor, page: FetchedPage, max_chars: int
    ) -> ExtractedDoc:
        """A worker of ``executor`` died: extract ``page`` in a thread."""
        could_not_start = executor is not self._proven and _failed_to_start(executor)
        if self._discard(executor):
            # a worker that cannot start (it raised importing the main script) never will
            self.breaks = MAX_BREAKS if could_not_start else self.breaks + 1
            _LOG.warning(
                "an extraction worker %s; pages in flight are extracted in threads%s",
                "could not start" if could_not_start else "died",
                "" if self.breaks < MAX_BREAKS else " from now on",
            )
        return await asyncio.to_thread(extract, page, max_chars=max_chars)

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (for memory figures)."""
        with self._lock:
            executor = self._executor
        processes = getattr(executor, "_processes", None) or {}
        return [process.pid for process in processes.values() if process.is_alive()]

    def start(self) -> None:
        """Start every worker now instead of on the first pages (benchmarks, warm-up)."""
        if self.workers == 0 or self.breaks >= MAX_BREAKS:
            return
        executor = self._running_executor()
        # a worker is started per submission until there are ``workers`` of them
        for future in [executor.submit(os.getpid) for _ in range(self.workers)]:
            future.result()
        self._proven = executor

    def shutdown(self, *, wait: bool = True) -> None:
        """Stop the workers once the pages handed to them are done; the next page starts
        a new pool."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=wait)

    def _running_executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=_context(), initializer=_start_worker
                )
            return self._executor

    def _discard(self, executor: ProcessPoolExecutor, *, kill: bool = False) -> bool:
        """Forget ``executor`` if it is still the current one and stop it (``kill``: its
        workers too); True for the first caller, since every page in flight on a broken
        pool ends up here."""
        with self._lock:
            if self._executor is not executor:
                return False
            self._executor = None
        if kill:
            self.killed += _kill_workers(executor)
        # not cancel_futures: a cancelled future would cancel the run awaiting it; pages
        # queued on a dead pool fail with BrokenProcessPool and go to a thread instead
        executor.shutdown(wait=False)
        return True


# --- the pool every run in this process shares -----------------------------------------

_shared: ExtractPool | None = None
_shared_lock = threading.Lock()
_at_exit: list[bool] = []


def shared_pool(workers: int) -> ExtractPool:
    """The process's pool, replaced when a run asks for a different number of workers."""
    global _shared
    with _shared_lock:
        pool = _shared
        if pool is not None and pool.workers == workers:
            return pool
        if not _at_exit:
            atexit.register(shutdown_shared_pool)
            _at_exit.append(True)
        if pool is not None:
            pool.shutdown(wait=False)  # pages already handed to it still finish
        _shared = ExtractPool(workers)
        return _shared


async def extract_page(page: FetchedPage, *, max_chars: int, workers: int) -> ExtractedDoc:
    """Extract ``page`` with the process's pool of ``workers`` (0: in a thread)."""
    if workers == 0:
        return await asyncio.to_thread(extract, page, max_chars=max_chars)
    return await shared_pool(workers).extract(page, max_chars=max_chars)


def shutdown_shared_pool() -> None:
    """Stop the shared pool's workers (service shutdown, interpreter exit)."""
    global _shared
    with _shared_lock:
        pool, _shared = _shared, None
    if pool is not None:
        pool.shutdown()


def refuse_in_worker_start() -> None:
    """Raise ConfigError when called while a new worker process imports the main script.

    A worker imports the script that started the program, as every spawned process does;
    a script that starts a run at top level (no ``if __name__ == "__main__":``) would run
    it again in each worker, model calls and all. This stops it there; the pool then
    extracts in threads.
    """
    # multiprocessing's own flag for "importing __main__ in a child being started"
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise ConfigError(
            "a research run was started while a page-extraction worker process was "
            "importing your script",
            hint='start it under `if __name__ == "__main__":`, or set extract_workers = 0',
        )


# --- worker side and helpers -----------------------------------------------------------


def _extract_in_worker(page: FetchedPage, max_chars: int) -> ExtractedDoc:
    return extract(page, max_chars=max_chars)


def _start_worker() -> None:
    """In each new worker: ignore Ctrl-C, and exit when the process that runs the pool
    is gone."""
    # Ctrl-C reaches the whole process group: the parent stops the pool, the workers
    # must not print a KeyboardInterrupt traceback each
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a worker holds both ends of its task queue, so it would wait on it forever after a
    # parent killed outright (SIGKILL, out of memory), and keep the forkserver alive too
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(
            target=_exit_with, args=(parent.sentinel,), name="exit-with-parent", daemon=True
        ).start()


def _exit_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(1)


def _context() -> BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # imported once in the forkserver (workers start in milliseconds and share it);
        # a worker imports the program's main script again, and when that is the CLI its
        # modules are preloaded too (else each worker imports them privately: 48 MB when
        # the CLI still imported LangChain eagerly).
        # The extractor module comes last: it freezes what was imported before it.
        cli = [_CLI] if _CLI in sys.modules else []
        context.set_forkserver_preload([*cli, "deepresearch.fetch.extract_worker"])
        return context
    return multiprocessing.get_context("spawn")


def _kill_workers(executor: ProcessPoolExecutor) -> list[int]:
    # ProcessPoolExecutor has no public way to stop a running call before Python 3.14
    processes = list((getattr(executor, "_processes", None) or {}).values())
    kill = getattr(executor, "kill_workers", None)
    if kill is not None:
        kill()
    else:
        for process in processes:
            process.kill()
    return [process.pid for process in processes]


def _failed_to_start(executor: ProcessPoolExecutor) -> bool:
    # a worker exits with a positive code only when its start-up raised; one killed by a
    # signal (crash, out of memory) has a negative code
    processes = list((getattr(executor, "_processes", None) or {}).values())
    return any((process.exitcode or 0) > 0 for process in processes)


def _is_pdf(page: FetchedPage) -> bool:
    # the test extract() uses to pick its PDF path
    media_type = page.content_type.split(";", 1)[0].strip().lower()
    return media_type == "application/pdf" or page.content.lstrip()[:5] == b"%PDF-"
