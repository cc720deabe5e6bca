"""service_load: the HTTP service under load, with a scripted model of realistic latency.

Three processes share the machine, as they would on one small server:

* **the offline web** (``OfflineWeb``: HotpotQA paragraphs, FreshWiki articles and Vital
  Article summaries with a SearXNG endpoint) in a child process of its own;
* **the service**: ``create_app`` served by uvicorn on loopback (``BackgroundServer``) in
  a child process, the default SQLite database (or PostgreSQL, see below), the worker pool,
  and the scripted model (``research_script()``, ``latency_s + per_token_s`` per output
  token, per call) for every role. A fresh process and database per measurement, warmed by
  one job with the latency switched off;
* **the clients** in this process: a thread pool issuing ``POST /v1/research`` and
  ``GET /v1/research/{id}``, and asyncio httpx clients reading the SSE streams.

Measured, for each ``max_concurrent_jobs`` level: jobs per minute, mean run time against a
job alone (the slowdown), CPU used by the service, its resident memory per running job,
and submit / status latency percentiles while every slot is busy; then events per second
delivered to many SSE clients tailing running jobs, checked for exactly-once delivery.

With ``DEEPRESEARCH_BENCH_POSTGRES_URL`` set (a database the benchmark may fill), every
measurement runs a second time on it, with figures prefixed ``postgresql.``.

``python -m bench.service_load --child web|service CONFIG_JSON`` is how this module starts
its child processes; it is not meant to be run by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, cast

import httpx
from fastapi import FastAPI
from langchain_core.messages import AIMessage, BaseMessage

from bench.common import BenchResult, Options, mean, percentile, require
from bench.machine import ROOT
from deepresearch.testing.scripted import Script, ScriptedChatModel

#: the environment variable naming a PostgreSQL database for a second pass
POSTGRES_ENV = "DEEPRESEARCH_BENCH_POSTGRES_URL"
#: a level "sustains" its jobs while they take at most this many times a job alone
SUSTAIN_SLOWDOWN = 1.25
TERMINAL = frozenset({"COMPLETED", "FAILED", "CANCELLED", "EXPIRED"})
SAMPLE_S = 0.2  # how often the service process's memory is read

NOTES = (
    "The service (create_app + uvicorn on loopback, the worker pool, SQLite in WAL mode "
    "unless the figure is prefixed postgresql.) runs in a child process of its own, fresh "
    "for each level, warmed by one job with the model's latency off; the offline web "
    "(HotpotQA + 25 FreshWiki + 400 Vital pages, SearXNG-style search) in another child; "
    "the clients in the benchmark's process. All three share the machine's cores. Every "
    "role is ScriptedChatModel(research_script()) sleeping latency_s + per_token_s x output "
    "tokens per call (asyncio.sleep: waiting costs no CPU); it keeps no prompts. "
    "cN.*: max_concurrent_jobs = N, max(3, 2N) distinct HotpotQA questions (params "
    "jobs_per_level) submitted at once. jobs_per_min: jobs / (last finished - first created); "
    "steady_jobs_per_min: N x 60 / mean run_s (every slot busy). run_s: started_at to "
    "finished_at of a job (server timestamps); queue_s: created_at to started_at. slowdown: "
    "mean run_s / mean run_s at the first level (one job at a time); "
    "slowdown_same_questions: the same ratio over the questions that level ran too (the "
    "question mix differs between levels). sustained_jobs: the highest level whose jobs all "
    "completed with slowdown <= 1.25. service_cpu_cores: the service process's user+system "
    "CPU seconds (/proc/PID/stat) / wall seconds over the level; machine_cpu_busy: the "
    "fraction of all cores busy (/proc/stat), clients and web included; web_cpu_cores, "
    "clients_cpu_cores (this process) and other_cpu_cores (the rest of the machine, e.g. "
    "a database server or other work: was the run alone?). Memory: VmRSS of "
    "the service process (/proc/PID/status) sampled every 0.2 s; rss_idle_mb after the "
    "warm-up job, rss_peak_mb the highest sample while the level ran, rss_per_job_mb = "
    "(peak - idle) / N; rss_slope_mb_per_job: least-squares slope of rss_peak_mb over N. "
    "API latency (client-side, keep-alive httpx, wall clock): while a level's queue still "
    "held jobs (every slot busy), api_threads threads each loop: POST /v1/research (a new "
    "question, a fresh Idempotency-Key; the caller may have any number of active runs and "
    "submissions) then POST .../cancel of that probe (so it never runs), then two GET "
    "/v1/research/{id} of the level's jobs, then pause api_pause_s. sse.*: sse_jobs jobs at "
    "max_concurrent_jobs = sse_jobs, sse_clients asyncio httpx clients spread round-robin "
    "over them, connected right after submission, each reading /events from the start to "
    "the terminal event; events_per_s = events with an id received by all clients / "
    "(last stream end - first connect); clients_exact: clients whose ids were exactly "
    "1..terminal seq once each in order; lag: receive time - the event's ts, for events "
    "emitted after the client connected; sse.status_*: GET /v1/research/{id} latency "
    "(status only, no submits) while the clients read. sse.replay.*: the same clients "
    "reading the finished jobs' whole streams at once. Inside the service process (bench "
    "instrumentation, an ASGI wrapper and a timer around JobStore.append_event): "
    "loop_lag_*: how late a 50 ms asyncio.sleep woke, i.e. how long the event loop was "
    "blocked; event_write_*: the duration of JobStore.append_event, which the worker calls "
    "for every run event from the event loop itself; loop_busy_writing_events: the share of "
    "wall time the loop spent in those writes. postgresql.*: the same on the database "
    "named by DEEPRESEARCH_BENCH_POSTGRES_URL, one database for every level."
)


# ---------------------------------------------------------------------------------------
# configuration


@dataclass(frozen=True)
class LoadConfig:
    """What one service_load run measures."""

    levels: tuple[int, ...] = (1, 3, 6, 10, 20, 40)
    depth: str = "standard"
    #: jobs per level: max(min_jobs, waves x level)
    min_jobs: int = 3
    waves: int = 2
    api_threads: int = 4
    api_pause_s: float = 0.5
    sse_clients: int = 100
    sse_jobs: int = 10
    #: give up on a level after this long
    timeout_s: float = 1800.0

    @classmethod
    def quick(cls) -> LoadConfig:
        """The smoke test's: two jobs one at a time, one job watched by three clients."""
        return cls(
            levels=(1,),
            depth="quick",
            min_jobs=2,
            waves=1,
            api_threads=2,
            api_pause_s=0.2,
            sse_clients=3,
            sse_jobs=1,
            timeout_s=300.0,
        )

    def jobs_at(self, level: int) -> int:
        return max(self.min_jobs, self.waves * level)


def config_for(options: Options) -> LoadConfig:
    """The run's configuration from the harness options."""
    if options.service_quick:
        return LoadConfig.quick()
    return LoadConfig(levels=tuple(options.service_levels), sse_clients=options.sse_clients)


# ---------------------------------------------------------------------------------------
# /proc readings (Linux; zeros elsewhere)

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _status_value(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _threads(pid: int) -> int:
    return _status_value(pid, "Threads")


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2 :].split()  # field 3 (state) onwards
    return (int(fields[11]) + int(fields[12])) / _TICK  # fields 14 utime, 15 stime


def machine_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of all cores since boot."""
    try:
        first = Path("/proc/stat").read_text(encoding="ascii").splitlines()[0]
    except (OSError, IndexError):
        return (0, 0)
    values = [int(part) for part in first.split()[1:9]]  # user..steal
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values) - idle, sum(values))


class ProcessWatch:
    """Samples a process's VmRSS and thread count in a thread; CPU and machine ticks at
    start and stop."""

    def __init__(self, pid: int, web_pid: int = 0) -> None:
        self.pid = pid
        self.web_pid = web_pid
        self.samples: list[tuple[float, float]] = []  # (monotonic, MiB)
        self.peak_threads = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="bench-rss")
        self.wall_s = 0.0
        self.cpu_s = 0.0
        self.machine_busy = 0.0
        #: CPU seconds of everything else: the web, this process (the clients), the rest
        self.web_cpu_s = 0.0
        self.clients_cpu_s = 0.0
        self.other_cpu_s = 0.0

    def __enter__(self) -> ProcessWatch:
        self._t0 = time.monotonic()
        self._cpu0 = process_cpu_s(self.pid)
        self._web0 = process_cpu_s(self.web_pid) if self.web_pid else 0.0
        self._own0 = time.process_time()
        self._ticks0 = machine_ticks()
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.monotonic(), _status_value(self.pid, "VmRSS") / 1024))
            self.peak_threads = max(self.peak_threads, _threads(self.pid))
            self._stop.wait(SAMPLE_S)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self.wall_s = time.monotonic() - self._t0
        self.cpu_s = process_cpu_s(self.pid) - self._cpu0
        self.web_cpu_s = process_cpu_s(self.web_pid) - self._web0 if self.web_pid else 0.0
        self.clients_cpu_s = time.process_time() - self._own0
        busy1, total1 = machine_ticks()
        busy0, total0 = self._ticks0
        self.machine_busy = (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0
        ours = self.cpu_s + self.web_cpu_s + self.clients_cpu_s
        self.other_cpu_s = max(0.0, (busy1 - busy0) / _TICK - ours)

    @property
    def peak_mb(self) -> float:
        return max((mb for _, mb in self.samples), default=0.0)

    @property
    def cores(self) -> float:
        return self.cpu_s / self.wall_s if self.wall_s > 0 else 0.0

    def cores_of(self, cpu_s: float) -> float:
        return cpu_s / self.wall_s if self.wall_s > 0 else 0.0


# ---------------------------------------------------------------------------------------
# child processes


@dataclass
class Child:
    process: subprocess.Popen[str]
    url: str
    pid: int
    info: dict[str, Any]
    log: Path


@contextmanager
def child(
    kind: str, config: dict[str, Any], log: Path, *, module: str = "bench.service_load"
) -> Iterator[Child]:
    """Start ``python -m MODULE --child KIND CONFIG``; it prints one JSON line (its URL)
    when ready and stops, gracefully, when its stdin closes."""
    command = [sys.executable, "-m", module, "--child", kind, json.dumps(config)]
    with log.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(  # noqa: S603 (our own interpreter and module)
            command,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            process.wait(timeout=30)
            raise RuntimeError(f"the {kind} child exited ({process.returncode}): {_tail(log)}")
        info: dict[str, Any] = json.loads(line)
        yield Child(process, str(info["url"]), int(info["pid"]), info, log)
    finally:
        _stop_child(process)


def _stop_child(process: subprocess.Popen[str]) -> None:
    if process.stdin is not None:
        with suppress(OSError):
            process.stdin.close()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()


def _tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def log_problems(log: Path) -> list[str]:
    """The error lines a child wrote (tracebacks' last lines, ERROR and Exception lines)."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = []
    for line in text.splitlines():
        lowered = line.lower()
        if "error" in lowered or "exception" in lowered or line.startswith("Traceback"):
            found.append(line.strip())
    return found


class LeanScriptedModel(ScriptedChatModel):
    """The scripted model without its record of every prompt (a real model keeps none,
    and the record would count as the service's memory)."""

    def __init__(self, script: Script, /, **data: Any) -> None:
        super().__init__(script, **data)

    def _respond(self, messages: list[BaseMessage]) -> AIMessage:
        message = super()._respond(messages)
        with self._lock:
            self._calls.clear()
        return message


def _serve_web(config: dict[str, Any]) -> None:
    from bench.end_to_end import corpus
    from deepresearch.testing.web import OfflineWeb

    with OfflineWeb(corpus(Path(config["data_dir"]))) as web:
        print(json.dumps({"url": web.base_url, "pid": os.getpid()}), flush=True)
        sys.stdin.read()


class LoopProbe:
    """An ASGI wrapper around the service, inside its process: measures how late the
    event loop wakes a 50 ms sleep (how long something blocked it), times every
    ``JobStore.append_event`` (the worker stores each run event from the loop), and
    answers ``GET /_bench/probe[?reset=1]`` with both."""

    TICK_S = 0.05

    def __init__(self, app: Any) -> None:
        self.app = app
        self.loop_thread: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self.since = time.monotonic()
            self.lags_ms: list[float] = []
            self.writes_ms: list[float] = []
            self.writes_on_loop_s = 0.0

    def instrument(self, store_class: Any) -> None:
        original = store_class.append_event

        def timed(store: Any, job_id: str, run_event: Any) -> int:
            started = time.perf_counter()
            try:
                return int(original(store, job_id, run_event))
            finally:
                elapsed = time.perf_counter() - started
                with self._lock:
                    self.writes_ms.append(elapsed * 1000)
                    if threading.current_thread() is self.loop_thread:
                        self.writes_on_loop_s += elapsed

        setattr(store_class, "append_event", timed)  # noqa: B010 (patching a method)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self._task is None:
            self.loop_thread = threading.current_thread()
            self._task = asyncio.get_running_loop().create_task(self._watch())
        if scope["type"] == "http" and scope["path"] == "/_bench/probe":
            if b"reset=1" in scope.get("query_string", b""):
                self.reset()
            body = json.dumps(self.snapshot()).encode()
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    async def _watch(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(self.TICK_S)
            late = time.perf_counter() - started - self.TICK_S
            with self._lock:
                self.lags_ms.append(max(0.0, late) * 1000)

    def snapshot(self) -> dict[str, float]:
        with self._lock:
            lags, writes = list(self.lags_ms), list(self.writes_ms)
            wall = time.monotonic() - self.since
            on_loop = self.writes_on_loop_s
        return {
            "wall_s": wall,
            "loop_lag_p50_ms": percentile(lags, 0.5),
            "loop_lag_p95_ms": percentile(lags, 0.95),
            "loop_lag_max_ms": max(lags, default=0.0),
            "event_writes": len(writes),
            "event_write_mean_ms": mean(writes),
            "event_write_p95_ms": percentile(writes, 0.95),
            "event_write_max_ms": max(writes, default=0.0),
            "event_writes_on_loop_s": on_loop,
        }


def _serve_service(config: dict[str, Any]) -> None:
    from deepresearch.service.app import create_app
    from deepresearch.service.app.jobs import Runtime
    from deepresearch.service.server import BackgroundServer
    from deepresearch.service.store import JobStore
    from deepresearch.settings import load_settings
    from deepresearch.settings_values import ROLES
    from deepresearch.testing.research_script import research_script

    web_url = str(config["web_url"])
    settings = load_settings(
        search="searxng",
        searxng_url=web_url,
        allow_hosts=[web_url.removeprefix("http://")],
        min_domains=1,
        fetch_min_interval_s=0.0,  # one loopback host for the whole web (see end_to_end)
        data_dir=Path(config["data_dir"]),
        database_url=config.get("database_url"),
        depth=config["depth"],
        max_concurrent_jobs=int(config["max_concurrent_jobs"]),
        # one caller submits every job: let it have as many as it likes
        active_runs_per_key=1_000_000,
        submissions_per_window=1_000_000,
        submission_window_s=1.0,
    )
    model = LeanScriptedModel(research_script())
    app = create_app(settings, runtime=Runtime(models=dict.fromkeys(ROLES, model)))
    probe = LoopProbe(app)
    probe.instrument(JobStore)
    with BackgroundServer(cast(FastAPI, probe)) as server:
        started = time.monotonic()
        with httpx.Client(base_url=server.url, timeout=120) as client:
            job = submit(client, str(config["warmup_question"]), str(config["depth"]))
            status = wait_terminal(client, [job], timeout_s=300)[job]["status"]
        model.latency_s = float(config["latency_s"])
        model.per_token_s = float(config["per_token_s"])
        info = {
            "url": server.url,
            "pid": os.getpid(),
            "warmup_status": status,
            "warmup_s": round(time.monotonic() - started, 2),
        }
        print(json.dumps(info), flush=True)
        sys.stdin.read()


# ---------------------------------------------------------------------------------------
# the API: jobs, the load generator


def submit(client: httpx.Client, question: str, depth: str, key: str | None = None) -> str:
    """POST a job; its id."""
    headers = {"Idempotency-Key": key} if key else None
    response = client.post(
        "/v1/research", json={"question": question, "options": {"depth": depth}}, headers=headers
    )
    if response.status_code != 201:
        raise RuntimeError(f"submitting failed: {response.status_code} {response.text[:300]}")
    return str(response.json()["id"])


def wait_terminal(
    client: httpx.Client, job_ids: Sequence[str], *, timeout_s: float, poll_s: float = 0.5
) -> dict[str, dict[str, Any]]:
    """Every job's final view, polling /v1/queue until nothing is queued or running."""
    deadline = time.monotonic() + timeout_s
    while True:
        counts = client.get("/v1/queue").json()["counts"]
        if counts["QUEUED"] == 0 and counts["RUNNING"] == 0:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"jobs still active after {timeout_s:.0f} s: {counts}")
        time.sleep(poll_s)
    views = {job_id: client.get(f"/v1/research/{job_id}").json() for job_id in job_ids}
    active = [job_id for job_id, view in views.items() if view["status"] not in TERMINAL]
    if active:  # finished between the counts and the views: look again
        return wait_terminal(client, job_ids, timeout_s=max(1.0, deadline - time.monotonic()))
    return views


def wait_claimed(client: httpx.Client, job_id: str, *, timeout_s: float) -> None:
    """Until ``job_id`` has left the queue (claims go in submission order)."""
    deadline = time.monotonic() + timeout_s
    while client.get(f"/v1/research/{job_id}").json()["status"] == "QUEUED":
        if time.monotonic() > deadline:
            raise RuntimeError(f"job {job_id} still queued after {timeout_s:.0f} s")
        time.sleep(0.5)


@dataclass
class ApiSamples:
    submit_ms: list[float] = field(default_factory=list)
    cancel_ms: list[float] = field(default_factory=list)
    status_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    wall_s: float = 0.0

    @property
    def requests(self) -> int:
        return (
            len(self.submit_ms)
            + len(self.cancel_ms)
            + len(self.status_ms)
            + sum(self.errors.values())
        )


class LoadGenerator:
    """Threads looping submit (+ cancel) and status requests until stopped."""

    def __init__(
        self,
        url: str,
        job_ids: Sequence[str],
        *,
        threads: int,
        pause_s: float,
        probes: Sequence[str] = (),
        depth: str = "quick",
    ) -> None:
        self.url = url
        self.job_ids = list(job_ids)
        self.pause_s = pause_s
        self.probes = list(probes)
        self.depth = depth
        self.samples = ApiSamples()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._loop, args=(i,), daemon=True, name=f"bench-api-{i}")
            for i in range(threads)
        ]

    def __enter__(self) -> LoadGenerator:
        self._t0 = time.monotonic()
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=120)
        self.samples.wall_s = time.monotonic() - self._t0

    def _timed(
        self, client: httpx.Client, method: str, path: str, **kw: Any
    ) -> tuple[httpx.Response | None, float]:
        started = time.perf_counter()
        try:
            response = client.request(method, path, **kw)
        except httpx.HTTPError as exc:
            with self._lock:
                self.samples.errors[f"{method} {type(exc).__name__}"] += 1
            return None, 0.0
        return response, (time.perf_counter() - started) * 1000

    def _record(self, bucket: list[float], ms: float) -> None:
        with self._lock:
            bucket.append(ms)

    def _error(self, what: str) -> None:
        with self._lock:
            self.samples.errors[what] += 1

    def _loop(self, index: int) -> None:
        rng = random.Random(index)
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while True:  # at least one round, however soon it is stopped
                if self.probes:
                    self._probe(client, rng)
                for _ in range(2):
                    job_id = rng.choice(self.job_ids)
                    response, ms = self._timed(client, "GET", f"/v1/research/{job_id}")
                    if response is not None and response.status_code == 200:
                        self._record(self.samples.status_ms, ms)
                    elif response is not None:
                        self._error(f"status {response.status_code}")
                if self._stop.wait(self.pause_s):
                    return

    def _probe(self, client: httpx.Client, rng: random.Random) -> None:
        question = f"{rng.choice(self.probes)} (probe {uuid.uuid4().hex[:8]})"
        response, ms = self._timed(
            client,
            "POST",
            "/v1/research",
            json={"question": question, "options": {"depth": self.depth}},
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )
        if response is None:
            return
        if response.status_code != 201:
            self._error(f"submit {response.status_code}")
            return
        self._record(self.samples.submit_ms, ms)
        job_id = response.json()["id"]
        response, ms = self._timed(client, "POST", f"/v1/research/{job_id}/cancel")
        if response is not None and response.status_code == 202:
            self._record(self.samples.cancel_ms, ms)
        elif response is not None:
            self._error(f"cancel {response.status_code}")


# ---------------------------------------------------------------------------------------
# SSE clients


@dataclass
class StreamLog:
    job_id: str
    connected: float = 0.0  # time.time()
    ended: float = 0.0
    ids: list[int] = field(default_factory=list)
    lags_ms: list[float] = field(default_factory=list)
    heartbeats: int = 0
    terminal: str | None = None
    error: str | None = None


async def _read_stream(client: httpx.AsyncClient, job_id: str) -> StreamLog:
    log = StreamLog(job_id, connected=time.time())
    try:
        async with client.stream("GET", f"/v1/research/{job_id}/events") as response:
            if response.status_code != 200:
                log.error = f"status {response.status_code}"
                return log
            fields: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line == "":
                    _take(log, fields)
                    fields = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")
            _take(log, fields)
    except httpx.HTTPError as exc:
        log.error = type(exc).__name__
    finally:
        log.ended = time.time()
    return log


def _take(log: StreamLog, fields: dict[str, str]) -> None:
    if "data" not in fields:
        return
    received = time.time()
    if "id" not in fields:
        if fields.get("event") == "heartbeat":
            log.heartbeats += 1
        return
    log.ids.append(int(fields["id"]))
    event = json.loads(fields["data"])
    emitted = datetime.fromisoformat(str(event["ts"])).timestamp()
    if emitted >= log.connected:
        log.lags_ms.append((received - emitted) * 1000)
    if event.get("type") in ("run_completed", "run_failed", "run_cancelled"):
        log.terminal = str(event["type"])


async def watch_all(url: str, job_ids: Sequence[str], clients: int) -> list[StreamLog]:
    """``clients`` concurrent SSE readers spread round-robin over ``job_ids``."""
    limits = httpx.Limits(max_connections=clients + 8, max_keepalive_connections=clients + 8)
    timeout = httpx.Timeout(60.0, connect=30.0, pool=60.0)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as client:
        return list(
            await asyncio.gather(
                *(_read_stream(client, job_ids[i % len(job_ids)]) for i in range(clients))
            )
        )


@dataclass
class Delivery:
    clients: int
    events: int
    events_per_s: float
    exact: int
    duplicates: int
    gaps: int
    out_of_order: int
    errors: int
    heartbeats: int
    lags_ms: list[float]
    events_per_job: float


def delivery(logs: Sequence[StreamLog]) -> Delivery:
    """What the clients received, checked against each job's terminal sequence number."""
    last: dict[str, int] = {}
    for log in logs:
        if log.terminal is not None and log.ids:
            last[log.job_id] = max(last.get(log.job_id, 0), log.ids[-1])
    exact = duplicates = gaps = out_of_order = 0
    for log in logs:
        expected = list(range(1, last.get(log.job_id, 0) + 1))
        unique = set(log.ids)
        duplicates += len(log.ids) - len(unique)
        gaps += len(set(expected) - unique)
        out_of_order += sum(1 for a, b in zip(log.ids, log.ids[1:], strict=False) if b <= a)
        if log.ids == expected and expected and log.terminal and not log.error:
            exact += 1
    events = sum(len(log.ids) for log in logs)
    span = max((log.ended for log in logs), default=0.0) - min(
        (log.connected for log in logs), default=0.0
    )
    return Delivery(
        clients=len(logs),
        events=events,
        events_per_s=events / span if span > 0 else 0.0,
        exact=exact,
        duplicates=duplicates,
        gaps=gaps,
        out_of_order=out_of_order,
        errors=sum(1 for log in logs if log.error),
        heartbeats=sum(log.heartbeats for log in logs),
        lags_ms=[lag for log in logs for lag in log.lags_ms],
        events_per_job=mean(list(last.values())),
    )


# ---------------------------------------------------------------------------------------
# measurements


@dataclass
class LevelStats:
    level: int
    questions: list[str]
    views: dict[str, dict[str, Any]]
    order: list[str]  # job ids in question order
    watch: ProcessWatch
    rss_idle_mb: float
    rss_hwm_mb: float
    api: ApiSamples
    #: the service's own readings (LoopProbe.snapshot) over the level
    probe: dict[str, float]
    problems: list[str]
    warmup_status: str

    def run_s(self) -> list[float]:
        return [_span(self.views[j], "started_at", "finished_at") for j in self.order]

    def queue_s(self) -> list[float]:
        return [_span(self.views[j], "created_at", "started_at") for j in self.order]

    def makespan_s(self) -> float:
        created = min(_ts(self.views[j]["created_at"]) for j in self.order)
        finished = max(_ts(self.views[j]["finished_at"]) for j in self.order)
        return finished - created

    def completed(self) -> int:
        return sum(1 for j in self.order if self.views[j]["status"] == "COMPLETED")


def _ts(value: Any) -> float:
    return datetime.fromisoformat(str(value)).timestamp()


def _span(view: dict[str, Any], start: str, end: str) -> float:
    if not view.get(start) or not view.get(end):
        return 0.0
    return _ts(view[end]) - _ts(view[start])


def _service_config(
    web_url: str, folder: Path, level: int, options: Options, cfg: LoadConfig, db: str | None
) -> dict[str, Any]:
    return {
        "web_url": web_url,
        "data_dir": str(folder / "data"),
        "database_url": db,
        "depth": cfg.depth,
        "max_concurrent_jobs": level,
        "latency_s": options.latency_s,
        "per_token_s": options.per_token_s,
        "warmup_question": WARMUP_QUESTION,
    }


WARMUP_QUESTION = "Which city hosted the first modern Olympic Games, and in which year?"


def measure_level(
    web: Child,
    level: int,
    questions: Sequence[str],
    probes: Sequence[str],
    options: Options,
    cfg: LoadConfig,
    db: str | None,
) -> LevelStats:
    """``questions`` as jobs at ``max_concurrent_jobs = level``, with submit and status
    requests while every slot is busy."""
    stats, _ = _measure(web, level, questions, probes, options, cfg, db, sse_clients=0)
    return stats


@dataclass
class SseStats:
    live: Delivery
    replay: Delivery
    replay_s: float
    level: LevelStats


def measure_sse(
    web: Child, questions: Sequence[str], options: Options, cfg: LoadConfig, db: str | None
) -> SseStats:
    """``questions`` as jobs, all running at once, read by ``cfg.sse_clients`` streams
    while status requests go on; then every stream replayed at once."""
    level = len(questions)
    _, sse = _measure(web, level, questions, (), options, cfg, db, cfg.sse_clients)
    assert sse is not None
    return sse


def _measure(
    web: Child,
    level: int,
    questions: Sequence[str],
    probes: Sequence[str],
    options: Options,
    cfg: LoadConfig,
    db: str | None,
    sse_clients: int,
) -> tuple[LevelStats, SseStats | None]:
    with tempfile.TemporaryDirectory(prefix=f"bench-service-c{level}-") as name:
        folder = Path(name)
        config = _service_config(web.url, folder, level, options, cfg, db)
        with (
            child("service", config, folder / "service.log") as service,
            httpx.Client(base_url=service.url, timeout=60) as client,
        ):
            rss_idle = _status_value(service.pid, "VmRSS") / 1024
            client.get("/_bench/probe", params={"reset": "1"})
            with ProcessWatch(service.pid, web.pid) as watch:
                order = [submit(client, q, cfg.depth) for q in questions]
                with LoadGenerator(
                    service.url,
                    order,
                    threads=cfg.api_threads,
                    pause_s=cfg.api_pause_s,
                    probes=probes,
                    depth=cfg.depth,
                ) as load:
                    if sse_clients:
                        logs = asyncio.run(watch_all(service.url, order, sse_clients))
                    else:  # claims go oldest first: the last job leaves the queue last
                        wait_claimed(client, order[-1], timeout_s=cfg.timeout_s)
                views = wait_terminal(client, order, timeout_s=cfg.timeout_s)
            probe = client.get("/_bench/probe").json()
            sse = None
            if sse_clients:
                started = time.monotonic()
                replayed = asyncio.run(watch_all(service.url, order, sse_clients))
                replay_s = time.monotonic() - started
            hwm = _status_value(service.pid, "VmHWM") / 1024
        problems = log_problems(folder / "service.log")
    stats = LevelStats(
        level=level,
        questions=list(questions),
        views=views,
        order=order,
        watch=watch,
        rss_idle_mb=rss_idle,
        rss_hwm_mb=hwm,
        api=load.samples,
        probe=probe,
        problems=problems,
        warmup_status=str(service.info.get("warmup_status")),
    )
    if sse_clients:
        sse = SseStats(delivery(logs), delivery(replayed), replay_s, stats)
    return stats, sse


# ---------------------------------------------------------------------------------------
# the benchmark


def run(options: Options) -> BenchResult:
    """Every level, then the SSE clients, on SQLite (and PostgreSQL when configured)."""
    from deepresearch.testing.corpora import hotpotqa_questions

    cfg = config_for(options)
    require(options.data_dir / "qa" / "hotpotqa")
    pool = [item.question for item in hotpotqa_questions(options.data_dir)]
    needed = max(max(cfg.jobs_at(level) for level in cfg.levels), cfg.sse_jobs)
    if len(pool) < needed:
        raise RuntimeError(f"{needed} jobs need as many HotpotQA questions; found {len(pool)}")
    # probes get a suffix of their own, so they never repeat a job's question
    questions, probes = pool[:needed], pool
    backends: list[tuple[str, str | None]] = [("", None)]
    if os.environ.get(POSTGRES_ENV):
        backends.append(("postgresql.", os.environ[POSTGRES_ENV]))
    result = BenchResult(notes=NOTES)
    result.params = {
        "latency_s": options.latency_s,
        "per_token_s": options.per_token_s,
        "depth": cfg.depth,
        "levels": list(cfg.levels),
        "jobs_per_level": [cfg.jobs_at(level) for level in cfg.levels],
        "api_threads": cfg.api_threads,
        "api_pause_s": cfg.api_pause_s,
        "sse_clients": cfg.sse_clients,
        "sse_jobs": cfg.sse_jobs,
        "backends": ["sqlite"] + (["postgresql"] if len(backends) > 1 else []),
        "memory": "VmRSS of the service process from /proc/PID/status, sampled every 0.2 s",
        "quick": cfg == LoadConfig.quick(),
    }
    with tempfile.TemporaryDirectory(prefix="bench-service-web-") as name:
        config = {"data_dir": str(options.data_dir)}
        with child("web", config, Path(name) / "web.log") as web:
            for prefix, db in backends:
                levels = [
                    measure_level(
                        web, level, questions[: cfg.jobs_at(level)], probes, options, cfg, db
                    )
                    for level in cfg.levels
                ]
                sse = measure_sse(web, questions[: cfg.sse_jobs], options, cfg, db)
                _add_levels(result, prefix, levels)
                _add_sse(result, prefix, sse, levels[0])
    return result


def _add_probe(result: BenchResult, prefix: str, probe: dict[str, float]) -> None:
    add = result.add
    wall = probe.get("wall_s", 0.0)
    add(prefix + "loop_lag_p50_ms", probe.get("loop_lag_p50_ms", 0.0), "ms")
    add(prefix + "loop_lag_p95_ms", probe.get("loop_lag_p95_ms", 0.0), "ms")
    add(prefix + "loop_lag_max_ms", probe.get("loop_lag_max_ms", 0.0), "ms")
    writes = probe.get("event_writes", 0.0)
    add(prefix + "event_writes_per_s", writes / wall if wall else 0.0, "events/s")
    add(prefix + "event_write_mean_ms", probe.get("event_write_mean_ms", 0.0), "ms")
    add(prefix + "event_write_p95_ms", probe.get("event_write_p95_ms", 0.0), "ms")
    add(prefix + "event_write_max_ms", probe.get("event_write_max_ms", 0.0), "ms")
    on_loop = probe.get("event_writes_on_loop_s", 0.0)
    add(prefix + "loop_busy_writing_events", on_loop / wall if wall else 0.0, "fraction")


def _add_api(result: BenchResult, prefix: str, api: ApiSamples, *, submits: bool) -> None:
    add = result.add
    if submits:
        add(prefix + "submit_p50_ms", percentile(api.submit_ms, 0.5), "ms")
        add(prefix + "submit_p95_ms", percentile(api.submit_ms, 0.95), "ms")
        add(prefix + "cancel_p50_ms", percentile(api.cancel_ms, 0.5), "ms")
    add(prefix + "status_p50_ms", percentile(api.status_ms, 0.5), "ms")
    add(prefix + "status_p95_ms", percentile(api.status_ms, 0.95), "ms")
    add(prefix + "status_max_ms", max(api.status_ms, default=0.0), "ms")
    add(prefix + "api_requests", api.requests, "requests")
    add(prefix + "api_rps", api.requests / api.wall_s if api.wall_s else 0.0, "requests/s")
    add(prefix + "api_errors", sum(api.errors.values()), "requests")


def _add_levels(result: BenchResult, prefix: str, levels: Sequence[LevelStats]) -> None:
    add = result.add
    solo = levels[0]
    solo_run = dict(zip(solo.questions, solo.run_s(), strict=True))
    for stats in levels:
        p = f"{prefix}c{stats.level}."
        runs = stats.run_s()
        mean_run = mean(runs)
        add(p + "jobs", len(stats.order), "jobs")
        add(p + "completed", stats.completed(), "jobs")
        add(p + "jobs_per_min", len(runs) * 60 / stats.makespan_s(), "jobs/min")
        add(p + "steady_jobs_per_min", stats.level * 60 / mean_run if mean_run else 0, "jobs/min")
        add(p + "run_s", mean_run, "s")
        add(p + "run_max_s", max(runs), "s")
        add(p + "queue_s", mean(stats.queue_s()), "s")
        add(p + "slowdown", mean_run / mean(solo.run_s()), "x")
        ratios = [
            run_s / solo_run[question]
            for question, run_s in zip(stats.questions, runs, strict=True)
            if solo_run.get(question)
        ]
        add(p + "slowdown_same_questions", mean(ratios), "x")
        calls = [int(stats.views[j]["usage"].get("calls", 0)) for j in stats.order]
        add(p + "model_calls", mean(calls), "calls/job")
        add(p + "service_cpu_cores", stats.watch.cores, "cores")
        add(p + "machine_cpu_busy", stats.watch.machine_busy, "fraction")
        add(p + "web_cpu_cores", stats.watch.cores_of(stats.watch.web_cpu_s), "cores")
        add(p + "clients_cpu_cores", stats.watch.cores_of(stats.watch.clients_cpu_s), "cores")
        add(p + "other_cpu_cores", stats.watch.cores_of(stats.watch.other_cpu_s), "cores")
        add(p + "rss_idle_mb", stats.rss_idle_mb, "MiB")
        add(p + "rss_peak_mb", stats.watch.peak_mb, "MiB")
        add(p + "rss_hwm_mb", stats.rss_hwm_mb, "MiB")
        add(
            p + "rss_per_job_mb",
            max(0.0, stats.watch.peak_mb - stats.rss_idle_mb) / stats.level,
            "MiB/job",
        )
        add(p + "service_threads", stats.watch.peak_threads, "threads")
        _add_api(result, p, stats.api, submits=True)
        _add_probe(result, p, stats.probe)
        add(p + "service_log_errors", len(stats.problems), "lines")
        if stats.problems:
            print(f"service_load c{stats.level}: {stats.problems[:5]}", file=sys.stderr)
    sustained = [
        stats.level
        for stats in levels
        if stats.completed() == len(stats.order)
        and mean(stats.run_s()) / mean(solo.run_s()) <= SUSTAIN_SLOWDOWN
    ]
    add(prefix + "sustained_jobs", max(sustained, default=0), "jobs")
    best = max(levels, key=lambda s: len(s.order) / s.makespan_s())
    add(prefix + "best_jobs_per_min", len(best.order) * 60 / best.makespan_s(), "jobs/min")
    add(prefix + "best_level", best.level, "jobs")
    add(
        prefix + "rss_slope_mb_per_job",
        _slope([s.level for s in levels], [s.watch.peak_mb for s in levels]),
        "MiB/job",
    )


def _add_sse(result: BenchResult, prefix: str, sse: SseStats, solo: LevelStats) -> None:
    add = result.add
    p = prefix + "sse."
    live, replay = sse.live, sse.replay
    add(p + "clients", live.clients, "clients")
    add(p + "jobs", len(sse.level.order), "jobs")
    add(p + "events_per_job", live.events_per_job, "events")
    add(p + "events_delivered", live.events, "events")
    add(p + "events_per_s", live.events_per_s, "events/s")
    add(p + "clients_exact", live.exact, "clients")
    add(p + "duplicates", live.duplicates, "events")
    add(p + "gaps", live.gaps, "events")
    add(p + "out_of_order", live.out_of_order, "events")
    add(p + "client_errors", live.errors, "clients")
    add(p + "heartbeats", live.heartbeats, "events")
    add(p + "lag_p50_ms", percentile(live.lags_ms, 0.5), "ms")
    add(p + "lag_p95_ms", percentile(live.lags_ms, 0.95), "ms")
    add(p + "lag_max_ms", max(live.lags_ms, default=0.0), "ms")
    add(p + "run_s", mean(sse.level.run_s()), "s")
    add(p + "slowdown", mean(sse.level.run_s()) / mean(solo.run_s()), "x")
    add(p + "service_cpu_cores", sse.level.watch.cores, "cores")
    add(p + "machine_cpu_busy", sse.level.watch.machine_busy, "fraction")
    add(p + "clients_cpu_cores", sse.level.watch.cores_of(sse.level.watch.clients_cpu_s), "cores")
    add(p + "other_cpu_cores", sse.level.watch.cores_of(sse.level.watch.other_cpu_s), "cores")
    add(p + "rss_peak_mb", sse.level.watch.peak_mb, "MiB")
    add(p + "service_threads", sse.level.watch.peak_threads, "threads")
    _add_api(result, p, sse.level.api, submits=False)
    _add_probe(result, p, sse.level.probe)
    add(p + "service_log_errors", len(sse.level.problems), "lines")
    if sse.level.problems:
        print(f"service_load sse: {sse.level.problems[:5]}", file=sys.stderr)
    add(p + "replay.events_per_s", replay.events_per_s, "events/s")
    add(p + "replay.clients_exact", replay.exact, "clients")
    add(p + "replay.duplicates", replay.duplicates, "events")
    add(p + "replay.gaps", replay.gaps, "events")
    add(p + "replay.client_errors", replay.errors, "clients")
    add(p + "replay.wall_s", sse.replay_s, "s")


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ys over xs; 0.0 with fewer than two distinct xs."""
    if len(set(xs)) < 2:
        return 0.0
    mx, my = mean(xs), mean(ys)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    den = sum((x - mx) ** 2 for x in xs)
    return num / den


# ---------------------------------------------------------------------------------------
# the child entry point


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.service_load")
    parser.add_argument("--child", choices=("web", "service"), required=True)
    parser.add_argument("config", help="JSON")
    args = parser.parse_args(argv)
    config: dict[str, Any] = json.loads(args.config)
    if args.child == "web":
        _serve_web(config)
    else:
        _serve_service(config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
