"""soak_streams: the soak's SSE clients (bench/soak.py), in a process of their own.

Each client thread takes a job id from a queue, follows its ``/events`` stream live from
the start to its terminal event through a random API, and when the connection breaks (an
API killed) reconnects through a random API with ``Last-Event-ID`` set to the last id it
got, as the page does. What it received (every id, in order, and how many times it
reconnected) goes back on another queue, to be checked against the database.
"""

from __future__ import annotations

import random
import threading
import time
from multiprocessing import Queue
from typing import Any

import httpx

from deepresearch.service.jobs import TERMINAL_EVENTS

#: a client gives up on a job after this long
FOLLOW_S = 900.0


def _read(client: httpx.Client, url: str, job_id: str, got: dict[str, Any]) -> bool:
    """One connection's worth of the stream; True once the terminal event came."""
    headers = {"Last-Event-ID": str(got["ids"][-1])} if got["ids"] else {}
    with client.stream("GET", f"{url}/v1/research/{job_id}/events", headers=headers) as response:
        if response.status_code != 200:
            got["statuses"].append(response.status_code)
            return False
        event = ""
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("id:"):
                got["ids"].append(int(line.removeprefix("id:").strip()))
            elif line == "":
                if event in TERMINAL_EVENTS:
                    got["terminal"] = event
                    return True
                event = ""
    return False


def follow(urls: list[str], job_id: str) -> dict[str, Any]:
    """The job's stream to its end, reconnecting as needed."""
    got: dict[str, Any] = {"job_id": job_id, "ids": [], "terminal": None, "statuses": []}
    got.update(reconnects=0, error=None)
    deadline = time.monotonic() + FOLLOW_S
    timeout = httpx.Timeout(60.0, connect=5.0)
    with httpx.Client(timeout=timeout) as client:
        while time.monotonic() < deadline:
            try:
                if _read(client, random.choice(urls), job_id, got):
                    return got
            except httpx.HTTPError as exc:
                got["error"] = type(exc).__name__
            got["reconnects"] += 1
            time.sleep(0.3)
    got["error"] = f"no terminal event after {FOLLOW_S:.0f} s ({got['error']})"
    return got


def _client(urls: list[str], jobs: Queue[str | None], results: Queue[dict[str, Any]]) -> None:
    while (job_id := jobs.get()) is not None:
        results.put(follow(urls, job_id))
    jobs.put(None)  # the next client stops too


def readers(
    urls: list[str], clients: int, jobs: Queue[str | None], results: Queue[dict[str, Any]]
) -> None:
    """``clients`` threads, each following one job after another until a ``None``."""
    threads = [
        threading.Thread(target=_client, args=(urls, jobs, results), daemon=True)
        for _ in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put({"done": True})
