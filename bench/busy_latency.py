"""busy_latency: how fast ``deepresearch serve`` answers ``GET /healthz`` and ``GET`` of a
job while it runs 20 jobs and 50 SSE clients follow them (issue 27).

    .venv/bin/python -m bench.busy_latency [--jobs 20] [--sse-clients 50]

One ``deepresearch serve`` process with its worker pool (SQLite in a temporary folder,
``--model none``, ``--search local`` over a small generated corpus, so a job is a real,
short, model-free run that emits a few dozen events). The jobs are submitted at once; the
SSE clients (threads in a process of their own, one connection each, round-robin over the
jobs) read each stream from its start to its terminal event. Meanwhile a probe, over one keep-alive connection as
the ``jobs`` CLI and the page use, asks ``/healthz`` and then ``GET /v1/research/{id}`` of
one of the jobs, in turn, every 20 ms until every job has finished. Prints p50, p95 and
max of each in milliseconds, and how many SSE clients got every event exactly once.

As in bench/keepalive.py, put another tree's ``src`` first on ``PYTHONPATH`` to measure
its server. Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from bench.common import percentile
from bench.keepalive import serving

TOPICS = (
    ("generators", "A generator function uses yield to produce values lazily."),
    ("coroutines", "Coroutines are built on generators; send() passes a value back in."),
    ("iterators", "An iterator implements __next__ and raises StopIteration at its end."),
    ("decorators", "A decorator wraps a function and returns a new callable."),
    ("closures", "A closure keeps the variables of the scope where it was defined."),
)
TERMINAL = ("run_completed", "run_failed", "run_cancelled", "run_expired")


def _corpus(folder: Path) -> None:
    folder.mkdir()
    for index in range(40):
        name, text = TOPICS[index % len(TOPICS)]
        body = " ".join(f"{text} Note {n} on {name} in Python." for n in range(12))
        (folder / f"{name}-{index}.md").write_text(f"# Python {name} {index}\n\n{body}\n")


def _follow(url: str, job_id: str, seen: list[bool]) -> None:
    """Read the job's stream to its terminal event; True when its ids were 1..n once."""
    ids: list[int] = []
    with (
        httpx.Client(base_url=url, timeout=120) as client,
        client.stream("GET", f"/v1/research/{job_id}/events") as response,
    ):
        event = ""
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("id:"):
                ids.append(int(line.removeprefix("id:").strip()))
            elif line == "" and event in TERMINAL:
                break
    seen.append(ids == list(range(1, len(ids) + 1)) and bool(ids))


def _readers(
    url: str, ids: list[str], clients: int, done: multiprocessing.SimpleQueue[int]
) -> None:
    """``clients`` readers, round-robin over the jobs; puts how many got every event once."""
    exact: list[bool] = []
    threads = [
        threading.Thread(target=_follow, args=(url, ids[n % len(ids)], exact))
        for n in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.put(sum(exact))


def _line(name: str, values: Sequence[float]) -> str:
    return (
        f"{name:<24} p50 {percentile(values, 0.5):7.2f} ms   p95 {percentile(values, 0.95):7.2f}"
        f" ms   max {max(values):7.2f} ms   (n={len(values)})"
    )


def _probe(client: httpx.Client, path: str, into: list[float]) -> None:
    started = time.perf_counter()
    response = client.get(path)
    into.append((time.perf_counter() - started) * 1000)
    if response.status_code != 200:
        raise RuntimeError(f"{path}: {response.status_code} {response.text[:200]}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.busy_latency")
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--sse-clients", type=int, default=50)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _corpus(folder / "corpus")
        env = {"DEEPRESEARCH_SEARCH": "local", "DEEPRESEARCH_CORPUS_DIR": str(folder / "corpus")}
        with (
            serving(folder, workers=True, env_extra=env) as url,
            httpx.Client(base_url=url, timeout=60) as client,
        ):
            started = time.perf_counter()
            ids = []
            for n in range(args.jobs):
                name = TOPICS[n % len(TOPICS)][0]
                question = f"How do {name} work in Python (question {n})?"
                response = client.post("/v1/research", json={"question": question})
                response.raise_for_status()
                ids.append(str(response.json()["id"]))
            # the readers in a process of their own: their threads would otherwise hold
            # the probe's GIL, and their parsing would count as the server's latency
            done: multiprocessing.SimpleQueue[int] = multiprocessing.SimpleQueue()
            readers = multiprocessing.Process(
                target=_readers, args=(url, ids, args.sse_clients, done)
            )
            readers.start()
            health: list[float] = []
            job: list[float] = []
            turn = 0
            while readers.is_alive():
                _probe(client, "/healthz", health)
                _probe(client, f"/v1/research/{ids[turn % len(ids)]}", job)
                turn += 1
                time.sleep(0.02)
            readers.join()
            exact = done.get()
            wall_s = time.perf_counter() - started
    print(_line("GET /healthz", health))
    print(_line("GET /v1/research/{id}", job))
    print(
        f"{args.jobs} jobs, {args.sse_clients} SSE clients ({exact} got every event "
        f"exactly once) in {wall_s:.1f} s"
    )


if __name__ == "__main__":
    main()
