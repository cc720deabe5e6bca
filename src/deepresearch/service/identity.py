"""Who a worker pool is across its lives: a restarted process knows the jobs it held
before it died, and resumes them at once instead of waiting out their leases.

A pool takes the lowest free *slot* of its data folder (``workers/<n>.lock``, held with
an OS file lock for the life of the process: a crash, even ``kill -9``, releases it). The
slot keeps a random id (``workers/<n>.id``, written once), so every life of the slot shares
the prefix ``<host>:<slot id>/`` of its worker ids. Holding the lock proves that no other
live process has that prefix: a running job leased to it belongs to a life that is over.
Processes with data folders of their own (several machines) never share a prefix."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

#: slots tried before a pool gives up on an identity of its own (it then runs without one)
MAX_SLOTS = 256


@dataclass(frozen=True)
class Life:
    """This process's life of a slot: its worker id and the prefix its earlier lives'
    ids share with it."""

    earlier: str
    worker_id: str
    lock: FileLock

    def end(self) -> None:
        self.lock.release()


def new_worker_id(prefix: str = "") -> str:
    """A worker id no other life has: ``<prefix><host>:<pid>:<random>`` (no prefix: the
    host)."""
    host = "" if prefix else f"{socket.gethostname()}:"
    return f"{prefix}{host}{os.getpid()}:{uuid.uuid4().hex[:8]}"


def take_life(folder: Path) -> Life | None:
    """The lowest free slot of ``folder``, held until ``Life.end`` or the process ends;
    None when every slot is held."""
    folder.mkdir(parents=True, exist_ok=True)
    for slot in range(MAX_SLOTS):
        lock = FileLock(folder / f"{slot}.lock", timeout=0)
        try:
            lock.acquire()
        except Timeout:
            continue
        earlier = f"{socket.gethostname()}:{_slot_id(folder / f'{slot}.id')}/"
        return Life(earlier, new_worker_id(earlier), lock)
    return None


def _slot_id(path: Path) -> str:
    """The slot's random id, made by its first holder (only the holder of the slot's lock
    reads or writes it)."""
    try:
        known = path.read_text(encoding="utf-8").strip()
    except OSError:
        known = ""
    if known:
        return known
    made = uuid.uuid4().hex[:12]
    path.write_text(made + "\n", encoding="utf-8")
    return made
