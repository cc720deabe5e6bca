"""upload_cap: the service's memory while hostile clients upload huge bodies (issue 13).

``deepresearch serve`` runs as a child process of its own (SQLite, no model, one API key,
the default ``max_request_bytes`` of 64 KiB). Ten clients at once each upload a 300 MB body
to ``POST /v1/research`` as fast as loopback takes it, a third with no key, a third with a
key that is not valid, the rest with the valid one; once with the length declared
(``Content-Length``), once without (chunked). Each client looks for an answer before every
64 KiB it sends and stops when it comes.

Measured per round: the server's VmRSS (``/proc/PID/status``) before it, its peak while
the uploads run (sampled every 10 ms) and after; how many uploads were answered 413; how
much each client had sent when its answer came; how long that took. Target: ten concurrent
300 MB uploads raise the server's resident memory by less than 30 MB.
"""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common import BenchResult, Options, mean, percentile

UPLOAD_BYTES = 300 * 1024 * 1024
CLIENTS = 10
CHUNK = 64 * 1024
SAMPLE_S = 0.01
TARGET_MB = 30.0

NOTES = (
    "deepresearch serve (SQLite, --model none, one API key, max_request_bytes 65536) in a "
    "child process; 10 client threads in the benchmark's process each upload 300 MB to "
    "POST /v1/research at once (clients 0, 3, 6, 9 with no key, 1, 4, 7 with an invalid "
    "one, 2, 5, 8 with the valid one), checking for an answer before each 64 KiB. "
    "declared.*: with Content-Length: 314572800; chunked.*: Transfer-Encoding: chunked. "
    "rss_before_mb: the server's VmRSS after a warm-up (health, a refused and an invalid "
    "submission); rss_peak_growth_mb: the highest VmRSS sampled every 10 ms during the round "
    "minus rss_before_mb (target < 30); rss_after_growth_mb: 1 s after the round. "
    "refused_413: uploads answered 413; sent_mb_mean/max: what a client had put on the "
    "socket when its answer came (kernel buffers included); answer_ms_p50/max: from its "
    "first byte to the answer."
)


@dataclass
class Upload:
    status: int
    sent: int
    seconds: float


def _rss_mb(pid: int) -> float:
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return 0.0
    found = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) / 1024 if found else 0.0


@contextmanager
def _serve(folder: Path) -> Iterator[tuple[str, int, str]]:
    """``deepresearch serve`` in a child process: its URL, its pid and an API key."""
    database = f"sqlite:///{folder / 'service.sqlite3'}"
    env = {**os.environ, "DEEPRESEARCH_DATA_DIR": str(folder / "data")}
    cli = [sys.executable, "-m", "deepresearch.cli.app"]
    made = subprocess.run(  # noqa: S603 (our own interpreter and CLI)
        [*cli, "keys", "create", "bench", "--database-url", database],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    token = made.stdout.split()[0]
    process = subprocess.Popen(  # noqa: S603
        [*cli, "serve", "--port", "0", "--database-url", database, "--model", "none"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "DEEPRESEARCH_SEARCH": "duckduckgo"},
    )
    try:
        assert process.stderr is not None
        url = ""
        while not url:
            line = process.stderr.readline()
            if not line:
                raise RuntimeError(f"deepresearch serve exited ({process.wait(timeout=30)})")
            found = re.search(r"serving on (http://\S+)", line)
            url = found.group(1) if found else ""
        threading.Thread(target=process.stderr.read, daemon=True).start()  # drain its log
        yield url, process.pid, token
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _upload(address: tuple[str, int], chunked: bool, auth: str) -> Upload:
    headers = ["POST /v1/research HTTP/1.1", "Host: bench", "Content-Type: application/json"]
    headers.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {UPLOAD_BYTES}")
    if auth:
        headers.append(f"Authorization: Bearer {auth}")
    body = b"x" * CHUNK
    piece = f"{CHUNK:x}\r\n".encode() + body + b"\r\n" if chunked else body
    sent = 0
    with socket.create_connection(address, timeout=60) as sock:
        started = time.perf_counter()
        sock.sendall(("\r\n".join(headers) + "\r\n\r\n").encode())
        try:
            while sent < UPLOAD_BYTES and not select.select([sock], [], [], 0)[0]:
                sock.sendall(piece)
                sent += CHUNK
        except OSError:
            pass  # the server closed the connection: its answer is already here
        try:
            first = sock.recv(64).split(b"\r\n", 1)[0].split()
            status = int(first[1]) if len(first) > 1 else 0
        except OSError:
            status = 0
        return Upload(status, sent, time.perf_counter() - started)


def _round(url: str, pid: int, token: str, chunked: bool) -> tuple[float, float, list[Upload]]:
    """Ten uploads at once: (peak, after) VmRSS in MB, and each upload."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    address = (host, int(port))
    auths = ["", "dr_not-a-valid-key", token]
    peak = _rss_mb(pid)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _rss_mb(pid))
            time.sleep(SAMPLE_S)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        uploads = list(pool.map(lambda n: _upload(address, chunked, auths[n % 3]), range(CLIENTS)))
    done.set()
    sampler.join()
    time.sleep(1.0)
    return peak, _rss_mb(pid), uploads


def run(options: Options) -> BenchResult:
    result = BenchResult(notes=NOTES)
    result.params.update(
        {
            "clients": CLIENTS,
            "upload_bytes": UPLOAD_BYTES,
            "max_request_bytes": 65_536,
            "target_growth_mb": TARGET_MB,
        }
    )
    with (
        tempfile.TemporaryDirectory(prefix="deepresearch-upload-") as folder,
        _serve(Path(folder)) as (url, pid, token),
    ):
        with httpx.Client(base_url=url, timeout=30) as client:  # warm the paths used
            for _ in range(3):
                client.get("/healthz")
                client.post("/v1/research", json={"question": "q"})
                client.post("/v1/research", json={"question": " "}, headers={"X-API-Key": token})
        time.sleep(0.5)
        for name, chunked in (("declared", False), ("chunked", True)):
            before = _rss_mb(pid)
            peak, after, uploads = _round(url, pid, token, chunked)
            sent = [u.sent / 1024 / 1024 for u in uploads]
            answer_ms = [u.seconds * 1000 for u in uploads]
            result.add(f"{name}.rss_before_mb", before, "MB", digits=1)
            result.add(f"{name}.rss_peak_growth_mb", peak - before, "MB", digits=1)
            result.add(f"{name}.rss_after_growth_mb", after - before, "MB", digits=1)
            result.add(f"{name}.refused_413", sum(u.status == 413 for u in uploads), "uploads")
            result.add(f"{name}.sent_mb_mean", mean(sent), "MB", digits=2)
            result.add(f"{name}.sent_mb_max", max(sent), "MB", digits=2)
            result.add(f"{name}.answer_ms_p50", percentile(answer_ms, 0.5), "ms", digits=1)
            result.add(f"{name}.answer_ms_max", max(answer_ms), "ms", digits=1)
    return result


if __name__ == "__main__":
    from rich.console import Console

    from bench.run import table

    Console().print(table({"upload_cap": run(Options())}))
