"""job_get: what ``GET`` of a finished job costs on a quiet server, against ``/healthz``
(issue 27: the soak's ``GET`` job p95 and what it is made of).

    .venv/bin/python -m bench.job_get [--gets 200]

One ``deepresearch serve`` process with its worker pool (SQLite in a temporary folder,
``--model none``, ``--search local`` over bench/busy_latency.py's small corpus) runs one
job to its end; then one keep-alive client asks ``/healthz`` and ``GET`` of that job in
turn, ``--gets`` times each, and prints p50, p95 and max in milliseconds. Nothing else
runs, so the figures are the requests' own cost; in the soak the same work waits for CPU
the workers share. Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from bench.busy_latency import _corpus, _line, _probe
from bench.keepalive import serving


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.job_get")
    parser.add_argument("--gets", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _corpus(folder / "corpus")
        env = {"DEEPRESEARCH_SEARCH": "local", "DEEPRESEARCH_CORPUS_DIR": str(folder / "corpus")}
        with (
            serving(folder, workers=True, env_extra=env) as url,
            httpx.Client(base_url=url, timeout=60) as client,
        ):
            submitted = client.post("/v1/research", json={"question": "How do generators work?"})
            submitted.raise_for_status()
            path = f"/v1/research/{submitted.json()['id']}"
            deadline = time.monotonic() + 300
            while (status := client.get(path).json()["status"]) != "COMPLETED":
                if status in ("FAILED", "CANCELLED", "EXPIRED") or time.monotonic() > deadline:
                    raise SystemExit(f"the job ended {status}")
                time.sleep(0.2)
            health: list[float] = []
            job: list[float] = []
            for _ in range(args.gets):
                _probe(client, "/healthz", health)
                _probe(client, path, job)
    print(_line("/healthz", health))
    print(_line("GET a finished job", job))


if __name__ == "__main__":
    main()
