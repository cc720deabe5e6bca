"""Starting ``deepresearch serve`` and ``deepresearch worker`` as real processes on one
database, each with a data folder of its own (as on separate machines), over the offline
web and the loopback chat server. Their log goes to a file (a pipe nobody reads would
fill up and stop them); the line each prints when ready is looked for there."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..cli.chat_server import SECRET, ChatServer

READY = {
    "serve": re.compile(r"serving on (http://127\.0\.0\.1:\d+)"),
    "worker": re.compile(r"deepresearch worker (\S+) running"),
}


@dataclass
class Process:
    kind: str
    popen: subprocess.Popen[bytes]
    log: Path
    ready: str  # the API's URL, or the worker's id

    @property
    def pid(self) -> int:
        return self.popen.pid

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=10)


def environment(folder: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DEEPRESEARCH_DATA_DIR": str(folder / "data"),
        "DEEPRESEARCH_MODEL_API_KEY": SECRET,
        "DEEPRESEARCH_DEPTH": "quick",
        "DEEPRESEARCH_MIN_DOMAINS": "1",
        "DEEPRESEARCH_FETCH_MIN_INTERVAL_S": "0",
        # the loopback chat server answers calls in parallel, like a hosted API
        "DEEPRESEARCH_MODEL_CONCURRENCY": "8",
        # workers at the tests' own priority: niced below the other test processes of a
        # parallel run, they would wait on them (worker_nice has a test of its own)
        "DEEPRESEARCH_WORKER_NICE": "0",
        **extra,
    }


def launch(
    kind: str,
    folder: Path,
    *,
    web: str,
    chat: ChatServer,
    database_url: str,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> Process:
    """Start ``deepresearch serve --port 0 ...`` or ``deepresearch worker ...``; see
    :func:`wait_ready`."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"{kind}.log"
    common = [
        "--database-url",
        database_url,
        "--model",
        "openai:local-model",
        "--model-base-url",
        f"http://127.0.0.1:{chat.server_address[1]}/v1",
        "--search",
        "searxng",
        "--searxng-url",
        web,
        "--allow-host",
        web.removeprefix("http://"),
    ]
    extra = ["--port", "0"] if kind == "serve" else []
    with log.open("wb") as out:
        popen = subprocess.Popen(
            [sys.executable, "-m", "deepresearch.cli.app", kind, *extra, *common, *args],
            stdout=subprocess.DEVNULL,
            stderr=out,
            env=environment(folder, **(env or {})),
        )
    return Process(kind, popen, log, "")


def wait_ready(process: Process, timeout: float = 90) -> Process:
    """Until the process printed its ready line: ``process.ready`` is then the API's URL
    or the worker's id."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = READY[process.kind].search(
            process.log.read_text(encoding="utf-8", errors="replace")
        )
        if found:
            process.ready = found.group(1)
            return process
        if process.popen.poll() is not None:
            break
        time.sleep(0.1)
    process.popen.kill()
    process.popen.wait(timeout=10)
    tail = process.log.read_text(encoding="utf-8", errors="replace")[-2000:]
    raise AssertionError(f"deepresearch {process.kind} did not start:\n{tail}")
