"""soak_fleet: the processes of the soak (bench/soak.py) and what is done to them.

Two ``deepresearch serve --no-workers`` processes (each on a port of its own, kept across
restarts) and three ``deepresearch worker`` processes on one database, started from the
real CLI with settings in the environment, each logging to a file. ``Fleet.kill_one``
sends ``SIGKILL`` to one of them and starts it again with the same command and data
folder (a worker's id, and so its own jobs, come back with it); ``RssSampler`` reads every
current process's VmRSS now and then.
"""

from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

WORKER_READY = re.compile(r"deepresearch worker (\S+) running")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def vm_rss_mb(pid: int) -> float:
    """The process's resident memory in MiB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@dataclass
class Slot:
    """One process of the fleet: what it is, how to start it, and its current pid."""

    name: str  # api0, api1, w0, w1, w2
    command: list[str]
    env: dict[str, str]
    log: Path
    port: int = 0  # an API's
    popen: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def is_api(self) -> bool:
        return self.port > 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.popen.pid if self.popen is not None else 0

    def start(self, *, timeout_s: float = 120) -> float:
        """Start the process and wait until it serves (an API) or runs (a worker);
        the seconds that took."""
        started = time.monotonic()
        before = self._ready_lines()
        with self.log.open("a") as sink:
            self.popen = subprocess.Popen(  # noqa: S603 (our own interpreter and CLI)
                self.command, env=self.env, stdout=sink, stderr=sink, cwd=self.log.parent
            )
        self.starts += 1
        while not self._ready(before):
            if self.popen.poll() is not None or time.monotonic() - started > timeout_s:
                raise RuntimeError(f"{self.name} did not start: {self._tail()}")
            time.sleep(0.1)
        return time.monotonic() - started

    def _ready_lines(self) -> int:
        if self.is_api or not self.log.is_file():
            return 0
        return len(WORKER_READY.findall(self.log.read_text(errors="replace")))

    def _ready(self, before: int) -> bool:
        if not self.is_api:
            return self._ready_lines() > before
        try:
            return httpx.get(self.url + "/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def _tail(self) -> str:
        return self.log.read_text(errors="replace")[-800:] if self.log.is_file() else ""

    def kill9(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            os.kill(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=30)

    def stop(self) -> None:
        if self.popen is None or self.popen.poll() is not None:
            return
        self.popen.terminate()
        try:
            self.popen.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(timeout=10)


@dataclass
class Kill:
    at_s: float  # since the soak started
    slot: str
    pid: int
    restart_s: float


@dataclass
class Fleet:
    """The APIs and workers, started and killed as the soak says."""

    slots: list[Slot]
    kills: list[Kill] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def apis(self) -> list[Slot]:
        return [slot for slot in self.slots if slot.is_api]

    def start(self) -> None:
        for slot in self.slots:  # one after another: each migrates the database at start
            slot.start()

    def stop(self) -> None:
        for slot in self.slots:
            slot.stop()

    def kill_one(self, rng: random.Random, since: float) -> Kill:
        """SIGKILL a random process and start it again at once."""
        slot = rng.choice(self.slots)
        with self.lock:
            pid = slot.pid
            slot.kill9()
            restart_s = slot.start()
        kill = Kill(round(time.monotonic() - since, 1), slot.name, pid, round(restart_s, 2))
        self.kills.append(kill)
        return kill

    def pids(self) -> dict[str, int]:
        with self.lock:
            return {slot.name: slot.pid for slot in self.slots}


def fleet(folder: Path, env: dict[str, str], *, apis: int, workers: int, shared: bool) -> Fleet:
    """The slots: ``apis`` APIs then ``workers`` workers, each with a data folder of its own
    (as separate machines) unless ``shared`` (SQLite: one machine, one data folder, so the
    checkpoints file is one)."""
    cli = [sys.executable, "-m", "deepresearch.cli.app"]
    slots = []
    for n in range(apis + workers):
        name = f"api{n}" if n < apis else f"w{n - apis}"
        home = folder / name
        home.mkdir(parents=True, exist_ok=True)
        data = folder / "data" if shared else home / "data"
        slot_env = {**env, "DEEPRESEARCH_DATA_DIR": str(data)}
        if n < apis:
            port = free_port()
            command = [*cli, "serve", "--port", str(port), "--no-workers"]
            slots.append(Slot(name, command, slot_env, home / "process.log", port=port))
        else:
            slots.append(Slot(name, [*cli, "worker"], slot_env, home / "process.log"))
    return Fleet(slots)


@dataclass
class RssSampler:
    """Every ``every_s``, each slot's current process's VmRSS: (seconds, slot, pid, MiB)."""

    fleet: Fleet
    since: float
    every_s: float = 5.0
    samples: list[tuple[float, str, int, float]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self._stop.is_set():
            at = round(time.monotonic() - self.since, 1)
            for name, pid in self.fleet.pids().items():
                if mb := vm_rss_mb(pid):
                    self.samples.append((at, name, pid, round(mb, 1)))
            self._stop.wait(self.every_s)

    def stop(self) -> None:
        self._stop.set()
