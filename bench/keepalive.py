"""keepalive: the latency of requests over one keep-alive connection to ``deepresearch
serve`` (issue 27), against a new connection per request.

    .venv/bin/python -m bench.keepalive [--requests 200] [--jobs 20]

Starts ``deepresearch serve --port 0 --no-workers`` in a fresh process (SQLite in a
temporary folder, no model, no keys: loopback), then over one ``httpx.Client``
(keep-alive) times ``--requests`` ``GET /healthz`` and ``GET /v1/queue`` after one untimed
warm-up, and ``--jobs`` submissions one after another (``POST /v1/research``; the jobs
stay queued, nothing runs them); then the same ``GET /healthz`` with a new connection
each (``Connection: close``). Prints p50, p95 and max in milliseconds and the submissions' total.

To measure another tree's server (the figures before a fix), put its ``src`` first:
``PYTHONPATH=/path/to/other/src .venv/bin/python -m bench.keepalive``; the server process
inherits it. Not part of ``make bench``: it is a before/after probe of one cause.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import httpx

from bench.common import percentile

SERVING = re.compile(r"serving on (http://\S+)")


@contextmanager
def serving(
    folder: Path, *, workers: bool = False, env_extra: dict[str, str] | None = None
) -> Iterator[str]:
    """``deepresearch serve`` in its own process (``--no-workers`` unless ``workers``);
    its URL while it runs."""
    env = {
        **os.environ,
        "DEEPRESEARCH_DATA_DIR": str(folder / "data"),
        "DEEPRESEARCH_DATABASE_URL": f"sqlite:///{folder / 'service.sqlite3'}",
        "DEEPRESEARCH_MODEL": "none",
        "DEEPRESEARCH_SEARCH": "duckduckgo",
        "DEEPRESEARCH_ACTIVE_RUNS_PER_KEY": "1000",
        "DEEPRESEARCH_SUBMISSIONS_PER_WINDOW": "100000",
        **(env_extra or {}),
    }
    command = [sys.executable, "-m", "deepresearch.cli.app", "serve", "--port", "0"]
    log = folder / "serve.log"  # a file, not a pipe: a full pipe would stall the server
    with log.open("w") as sink:
        process = subprocess.Popen(  # noqa: S603 (our own interpreter and CLI)
            [*command, "--workers" if workers else "--no-workers"],
            env=env,
            stdout=sink,
            stderr=sink,
            cwd=folder,
        )
    try:
        deadline = time.monotonic() + 60
        while not (found := SERVING.search(log.read_text())):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the service did not start: {log.read_text()[-500:]}")
            time.sleep(0.1)
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(timeout=30)


def _timed_ms(call: Callable[[], httpx.Response], times: int) -> list[float]:
    out = []
    for _ in range(times):
        started = time.perf_counter()
        response = call()
        out.append((time.perf_counter() - started) * 1000)
        if response.status_code >= 400:
            raise RuntimeError(f"{response.status_code}: {response.text[:200]}")
    return out


def _submit(client: httpx.Client, n: int) -> httpx.Response:
    return client.post("/v1/research", json={"question": f"What is question {n}?"})


def _line(name: str, values: Sequence[float]) -> str:
    return (
        f"{name:<28} p50 {percentile(values, 0.5):7.2f} ms   p95 {percentile(values, 0.95):7.2f}"
        f" ms   max {max(values):7.2f} ms   (n={len(values)})"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.keepalive")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=20)
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory() as tmp,
        serving(Path(tmp)) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        client.get("/healthz")  # the connection, opened untimed
        health = _timed_ms(lambda: client.get("/healthz"), args.requests)
        queue = _timed_ms(lambda: client.get("/v1/queue"), args.requests)
        started = time.perf_counter()
        submits = [_timed_ms(partial(_submit, client, n), 1)[0] for n in range(args.jobs)]
        total_s = time.perf_counter() - started
        close = {"Connection": "close"}  # a new connection for each
        fresh = _timed_ms(lambda: client.get("/healthz", headers=close), args.requests)
    print(_line("keep-alive GET /healthz", health))
    print(_line("keep-alive GET /v1/queue", queue))
    print(_line("keep-alive POST /v1/research", submits))
    print(f"{'':<28} {args.jobs} submissions one after another: {total_s:.2f} s")
    print(_line("new connection GET /healthz", fresh))


if __name__ == "__main__":
    main()
