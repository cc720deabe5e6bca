"""``deepresearch worker`` lowers its own CPU priority by ``worker_nice`` (default 10), so
that the API processes and the database sharing its cores answer requests first (the
soak's ``GET`` of a job waited behind the workers' runs)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from deepresearch.cli.worker import lower_priority


def _nice(pid: int) -> int:
    # /proc/PID/stat: the 19th field is the niceness (after the command in parentheses)
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[16])


def test_a_worker_process_runs_at_a_lower_priority(tmp_path: Path) -> None:
    env = {**os.environ, "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    worker = subprocess.Popen(
        [sys.executable, "-m", "deepresearch.cli.app", "worker", "--search", "none"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        assert worker.stderr is not None
        for line in worker.stderr:
            if "deepresearch worker" in line and "running" in line:
                break
            assert time.monotonic() < deadline, "the worker did not start"
        assert _nice(worker.pid) == min(19, os.nice(0) + 10)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)


def test_no_niceness_leaves_the_priority_alone() -> None:
    before = os.nice(0)
    lower_priority(0)
    assert os.nice(0) == before
