"""startup: how long deepresearch takes to start (issue 19). Targets: ``deepresearch --help``
within 0.3 s, the first event of a ``run`` within 1 s, on a quiet machine.

Each case is a fresh process, run ``--startup-runs`` times after one untimed warm-up (which
compiles the bytecode); the median is reported, as wall time and as the CPU time the process
used (user + system). On a quiet machine the two agree; on a busy one the wall time grows
with the load while the CPU time stays near what a quiet machine's wall time would be.

- ``import``: ``python -c "import deepresearch"``;
- ``import_api``: ``python -c "import deepresearch.api"``: the entry points' real imports
  (LangChain, LangGraph, the recipes), loaded on first use, so what a library user pays
  when calling ``research()`` the first time (and about what ``import deepresearch`` cost
  before it was lazy);
- ``help``, ``version``, ``run_help``: ``deepresearch --help``, ``--version``,
  ``run --help`` (the installed console script);
- ``first_event``: ``deepresearch run QUESTION --model none --search local --corpus DIR
  --json-events``, from the process's start to the first line on its standard output;
  its CPU time is read from ``/proc/PID/stat`` at that moment. ``run_total`` is the
  whole offline run, for scale.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.common import BenchResult, Options

NOTES = (
    "Fresh processes, median of --startup-runs after one untimed warm-up. *_wall_s: wall "
    "time; *_cpu_s: user + system CPU time of the process (load on the machine inflates the "
    "wall time, much less the CPU time). import: python -c 'import deepresearch'; "
    "import_api: python -c 'import deepresearch.api' (what the entry points load on first "
    "use); help, version, run_help: the deepresearch console script with --help, --version, "
    "run --help; first_event: from the start of an offline 'deepresearch run' (--model none "
    "--search local over a 3-file folder, --json-events) to its first NDJSON line, CPU read "
    "from /proc at that moment; run_total: that whole run. Targets: help_wall_s <= 0.3 and "
    "first_event_wall_s <= 1 on a quiet machine."
)
QUESTION = "What are generators in Python?"


def _command() -> list[str]:
    script = Path(sys.executable).parent / "deepresearch"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "deepresearch.cli.app"]


def _timed(args: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(  # noqa: S603 (our own interpreter and CLI)
        args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _first_event(args: Sequence[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(seconds to the first stdout line, CPU seconds used by then, seconds to the end)."""
    started = time.perf_counter()
    process = subprocess.Popen(  # noqa: S603 (our own interpreter and CLI)
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    first = time.perf_counter() - started
    cpu = _process_cpu(process.pid)
    process.stdout.read()
    if process.wait() not in (0, 3) or not line.startswith(b"{"):
        raise RuntimeError(f"the offline run failed (exit {process.returncode})")
    return first, cpu, time.perf_counter() - started


def _process_cpu(pid: int) -> float:
    """utime + stime of a running process, from /proc (0.0 where there is no /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _corpus(folder: Path) -> None:
    folder.mkdir()
    for index, text in enumerate(
        (
            "A generator function uses the yield statement to produce values lazily.",
            "Calling next() on a generator resumes it until the following yield.",
            "Coroutines are built on generators: send() passes a value back in.",
        )
    ):
        (folder / f"doc{index}.md").write_text(f"# Generators {index}\n\n{text}\n")


def run(options: Options) -> BenchResult:
    result = BenchResult(notes=NOTES)
    runs = options.startup_runs
    result.params.update({"runs": runs, "warmup": options.warmup, "command": " ".join(_command())})
    work = Path(tempfile.mkdtemp(prefix="deepresearch-startup-"))
    env = {**os.environ, "DEEPRESEARCH_DATA_DIR": str(work / "data"), "COLUMNS": "100"}
    env.pop("DEEPRESEARCH_CONFIG", None)
    try:
        _corpus(work / "corpus")
        python = [sys.executable, "-c"]
        cases: dict[str, Callable[[], tuple[float, float]]] = {
            "import": lambda: _timed([*python, "import deepresearch"], env),
            "import_api": lambda: _timed([*python, "import deepresearch.api"], env),
            "help": lambda: _timed([*_command(), "--help"], env),
            "version": lambda: _timed([*_command(), "--version"], env),
            "run_help": lambda: _timed([*_command(), "run", "--help"], env),
        }
        for name, measure in cases.items():
            if options.warmup:
                measure()
            walls, cpus = zip(*(measure() for _ in range(runs)), strict=True)
            result.add(f"{name}_wall_s", statistics.median(walls), "s")
            result.add(f"{name}_cpu_s", statistics.median(cpus), "s")
        offline = [
            *_command(), "run", QUESTION, "--model", "none", "--search", "local",
            "--corpus", str(work / "corpus"), "--json-events", "--out", str(work / "r.md"),
        ]  # fmt: skip
        if options.warmup:
            _first_event(offline, env)
        firsts = [_first_event(offline, env) for _ in range(runs)]
        result.add("first_event_wall_s", statistics.median(f[0] for f in firsts), "s")
        result.add("first_event_cpu_s", statistics.median(f[1] for f in firsts), "s")
        result.add("run_total_wall_s", statistics.median(f[2] for f in firsts), "s")
        result.params["load_average_1m"] = round(os.getloadavg()[0], 2)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result
