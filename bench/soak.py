"""soak: the service under sustained load and faults (issue 27).

    .venv/bin/python -m bench.soak [--backend postgresql|sqlite] [--jobs 1000]
        [--minutes 25] [--sse-clients 50] [--kill-every 60] [--out FILE]

Two ``deepresearch serve --no-workers`` and three ``deepresearch worker`` processes
(bench/soak_fleet.py) on one database: a throwaway PostgreSQL server on loopback (as
tests/service/postgres.py starts one; ``--postgres-url`` names an admin URL of an
existing one instead), or one SQLite file. Jobs use no model (``--model none``, the local
search over a generated 40-file corpus), so each is a short real run. The driver
(bench/soak_driver.py) keeps ``--in-flight`` jobs active until ``--jobs`` were submitted
(or ``--minutes`` passed), with mixed steering: plan reviews answered, findings reviews
answered, follow-ups, cancels. ``--sse-clients`` SSE clients (bench/soak_streams.py, a
process of their own) follow every job live, two each, reconnecting with
``Last-Event-ID`` when an API dies. Every ``--kill-every`` seconds a random API or worker
gets ``SIGKILL`` and is started again at once.

Then, with every process stopped, the database is checked job by job: lost (submitted
but not finished, or not there), run twice (more than one ``run_started`` or terminal
event, or a gap in its event numbers), and every stream a client read against it
(missing or repeated ids). ``/healthz`` and ``GET`` job latencies (p50/p95/max), each
process's RSS over time, and the database's size per finished job before and after
``deepresearch gc`` (compaction, then with ``retain_jobs_days`` near 0: every job
forgotten). Prints a summary and writes everything to ``--out``
(``bench/results/soak-BACKEND.json``). Not part of ``make bench``: it takes minutes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from bench.common import percentile
from bench.machine import ROOT, describe, git_revision
from bench.soak_driver import TOPICS, Apis, Driver, Probe
from bench.soak_fleet import Fleet, RssSampler, fleet
from bench.soak_streams import readers

RESULTS = ROOT / "bench" / "results"


def _corpus(folder: Path) -> None:
    folder.mkdir()
    for index in range(40):
        name, text = TOPICS[index % len(TOPICS)]
        body = " ".join(f"{text} Note {n} on {name} in Python." for n in range(12))
        (folder / f"{name}-{index}.md").write_text(f"# Python {name} {index}\n\n{body}\n")


@contextmanager
def database(backend: str, folder: Path, admin_url: str) -> Iterator[str]:
    """The SQLAlchemy URL of a fresh database for the soak."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / 'data' / 'service.sqlite3'}"
        return
    if admin_url:
        os.environ["DEEPRESEARCH_TEST_POSTGRES_URL"] = admin_url
    sys.path.insert(0, str(ROOT))
    from tests.service.postgres import PostgresServer

    server = PostgresServer()
    if admin_url:
        server.admin_url = admin_url
    why = server.available()
    if why:
        raise SystemExit(f"no PostgreSQL: {why}")
    server.start()
    try:
        yield server.new_database()
    finally:
        server.stop()


def _environment(folder: Path, database_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DEEPRESEARCH_DATABASE_URL": database_url,
        "DEEPRESEARCH_MODEL": "none",
        "DEEPRESEARCH_SEARCH": "local",
        "DEEPRESEARCH_CORPUS_DIR": str(folder / "corpus"),
        "DEEPRESEARCH_DEPTH": "quick",
        # one caller (no keys) submits every job: let it
        "DEEPRESEARCH_ACTIVE_RUNS_PER_KEY": "100000",
        "DEEPRESEARCH_SUBMISSIONS_PER_WINDOW": "1000000",
        "DEEPRESEARCH_SUBMISSION_WINDOW_S": "1",
    }


def _killer(fleet: Fleet, every_s: float, stop: threading.Event, since: float) -> None:
    rng = random.Random(7)
    while not stop.wait(every_s):
        kill = fleet.kill_one(rng, since)
        print(
            f"  {kill.at_s:7.1f} s: kill -9 {kill.slot} (pid {kill.pid}), back in {kill.restart_s} s",
            flush=True,
        )


def _spread(values: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 0.5), 1),
        "p95_ms": round(percentile(values, 0.95), 1),
        "max_ms": round(max(values, default=0.0), 1),
    }


def _rss(samples: list[tuple[float, str, int, float]]) -> dict[str, dict[str, Any]]:
    """Per slot: first, last and highest sample, and a sample a minute."""
    out: dict[str, dict[str, Any]] = {}
    for name in sorted({s[1] for s in samples}):
        mine = [s for s in samples if s[1] == name]
        minute: dict[int, float] = {}
        for at, _, _, mb in mine:
            minute.setdefault(int(at // 60), mb)
        out[name] = {
            "first_mb": mine[0][3],
            "last_mb": mine[-1][3],
            "max_mb": max(s[3] for s in mine),
            "processes": len({s[2] for s in mine}),
            "per_minute_mb": list(minute.values()),
        }
    return out


def _collect_streams(results: Any, reader: BaseProcess) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            item = results.get(timeout=1)
        except Exception:
            if not reader.is_alive():
                break
            continue
        if item.get("done"):
            break
        out.append(item)
    if reader.is_alive():
        reader.terminate()
    return out


def _timed(name: str, call: Callable[[], Any]) -> Any:
    started = time.monotonic()
    value = call()
    print(f"  {name}: {time.monotonic() - started:.1f} s")
    return value


def soak(args: argparse.Namespace, folder: Path, database_url: str) -> dict[str, Any]:
    """Run the load, the faults and the checks; the results."""
    from bench.soak_checks import check_jobs, check_streams, sizes_and_gc

    _corpus(folder / "corpus")
    env = _environment(folder, database_url)
    the_fleet = fleet(folder, env, apis=2, workers=3, shared=args.backend == "sqlite")
    _timed("fleet started", the_fleet.start)
    urls = [slot.url for slot in the_fleet.apis]
    since = time.monotonic()
    rng = random.Random(args.seed)
    spawn = multiprocessing.get_context("spawn")
    streams: Any = spawn.Queue()
    results: Any = spawn.Queue()
    reader = spawn.Process(target=readers, args=(urls, args.sse_clients, streams, results))
    reader.start()
    apis = Apis(urls, random.Random(args.seed + 1))
    driver = Driver(apis, streams, rng, args.jobs, args.in_flight, 2, since + args.minutes * 60)
    probe = Probe(urls, driver, random.Random(args.seed + 2))
    rss = RssSampler(the_fleet, since)
    stop_kills = threading.Event()
    threads = [
        threading.Thread(target=probe.run, daemon=True),
        threading.Thread(target=rss.run, daemon=True),
        threading.Thread(target=_killer, args=(the_fleet, args.kill_every, stop_kills, since)),
    ]
    for thread in threads:
        thread.start()
    try:
        driver.run(drain_s=args.drain_s, on_drain=stop_kills.set)
    finally:
        stop_kills.set()
        threads[2].join()
        probe.stop()
        rss.stop()
        wall_s = time.monotonic() - since
        streams.put(None)
        read = _collect_streams(results, reader)
        apis.close()
        _timed("fleet stopped", the_fleet.stop)
    jobs = check_jobs(database_url, driver)
    out: dict[str, Any] = {
        "wall_s": round(wall_s, 1),
        "jobs": jobs,
        "streams": check_streams(database_url, read),
        "latency": {"healthz": _spread(probe.health_ms), "get_job": _spread(probe.job_ms)},
        "probe_api_down": probe.down,
        "probe_errors": dict(probe.errors),
        "failovers": apis.failovers,
        "submit_statuses": dict(driver.statuses),
        "refused": driver.refused[:10],
        "kills": [vars(kill) for kill in the_fleet.kills],
        "rss": _rss(rss.samples),
        "rss_samples": rss.samples,
        "storage": sizes_and_gc(args.backend, database_url, folder, env, jobs["finished"]),
        "log_problems": _log_problems(the_fleet),
    }
    return out


#: whole tracebacks kept in the results
MAX_TRACEBACKS = 5


def _log_problems(the_fleet: Fleet) -> dict[str, Any]:
    """ERROR lines counted, and the first tracebacks whole (a job that "failed
    unexpectedly" says only the exception's type; its log has the rest)."""
    lines: Counter[str] = Counter()
    tracebacks: list[str] = []
    for slot in the_fleet.slots:
        text = slot.log.read_text(errors="replace") if slot.log.is_file() else ""
        for line in text.splitlines():
            if line.startswith(("ERROR", "CRITICAL")) or "Traceback" in line:
                lines[f"{slot.name}: {line.strip()[:160]}"] += 1
        tracebacks += [f"{slot.name}: {block}" for block in _tracebacks(text)]
    return {
        "count": sum(lines.values()),
        "first": lines.most_common(15),
        "tracebacks": tracebacks[:MAX_TRACEBACKS],
    }


def _tracebacks(text: str) -> list[str]:
    """Each traceback in a log: from ``Traceback`` to the exception's line (the first
    line not indented after it), its last 30 lines."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("Traceback"):
            current = [line]
        elif current is not None:
            current.append(line)
            if line and not line.startswith((" ", "\t")):
                blocks.append("\n".join(current[-30:]))
                current = None
    return blocks


def _summary(result: dict[str, Any]) -> None:
    jobs, streams, latency = result["jobs"], result["streams"], result["latency"]
    print(f"jobs submitted {jobs['submitted']}, finished {jobs['finished']} {jobs['by_status']}")
    print(f"  lost {jobs['lost']}, run twice {jobs['run_twice']}, event gaps {jobs['seq_gaps']}")
    print(
        f"streams {streams['streams']}: exact {streams['exact']}, missing "
        f"{streams['missing_events']}, repeated {streams['repeated_events']}, unfinished "
        f"{streams['unfinished']}, reconnects {streams['reconnects']}"
    )
    for name, spread in latency.items():
        print(f"  {name}: p50 {spread['p50_ms']} p95 {spread['p95_ms']} max {spread['max_ms']} ms")
    for name, rss in result["rss"].items():
        print(f"  rss {name}: {rss['per_minute_mb']} (max {rss['max_mb']})")
    print(f"storage {result['storage']}")
    print(f"kills {len(result['kills'])}; log problems {result['log_problems']['count']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak")
    parser.add_argument("--backend", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--postgres-url", default="", help="an admin URL of an existing server")
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--minutes", type=float, default=25.0, help="stop submitting after")
    parser.add_argument("--in-flight", type=int, default=25)
    parser.add_argument("--sse-clients", type=int, default=50)
    parser.add_argument("--kill-every", type=float, default=60.0)
    parser.add_argument("--drain-s", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None, help="work here and keep it")
    args = parser.parse_args(argv)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    revision = git_revision()  # what runs (a restarted process imports the tree as it is then)
    with tempfile.TemporaryDirectory(prefix="soak-") as name:
        folder = args.keep or Path(name)  # --keep: the processes' logs and data stay
        folder.mkdir(parents=True, exist_ok=True)
        with database(args.backend, folder, args.postgres_url) as database_url:
            result = soak(args, folder, database_url)
    params = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
    record = {"date": started, "git_revision": revision, "machine": describe()}
    out = args.out or RESULTS / f"soak-{args.backend}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({**record, "params": params, **result}, indent=1) + "\n")
    _summary(result)
    print(f"written to {out}")
    jobs = result["jobs"]
    bad = jobs["lost"] + jobs["run_twice"] + result["streams"]["missing_events"]
    return 1 if bad + result["streams"]["repeated_events"] else 0


if __name__ == "__main__":
    sys.exit(main())
