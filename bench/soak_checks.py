"""soak_checks: what the soak (bench/soak.py) checks once every process has stopped.

Jobs against the database (each submitted job there and finished; one ``run_started``
and one terminal event at most; event numbers 1..n without a gap), the SSE clients'
streams against the events stored, and the database's size per finished job before and
after ``deepresearch gc``.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bench.soak_driver import Driver
from deepresearch.service.db import make_engine
from deepresearch.service.jobs import TERMINAL, TERMINAL_EVENTS
from deepresearch.service.tables import job_events, research_jobs


def _rows(database_url: str, ids: list[str]) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """Each job's row, and its events (seq, type) in order."""
    engine = make_engine(database_url)
    jobs: dict[str, Any] = {}
    events: dict[str, list[Any]] = defaultdict(list)
    try:
        with engine.connect() as conn:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                for row in conn.execute(select(research_jobs).where(research_jobs.c.id.in_(chunk))):
                    jobs[row.id] = row
                query = (
                    select(job_events.c.job_id, job_events.c.seq, job_events.c.type)
                    .where(job_events.c.job_id.in_(chunk))
                    .order_by(job_events.c.job_id, job_events.c.seq)
                )
                for event in conn.execute(query):
                    events[event.job_id].append(event)
    finally:
        engine.dispose()
    return jobs, events


def check_jobs(database_url: str, driver: Driver) -> dict[str, Any]:
    """Lost, run twice, gaps in the stored events; statuses per kind of job."""
    ids = list(driver.tracked)
    rows, events = _rows(database_url, ids)
    lost = [i for i in ids if i not in rows or rows[i].status not in TERMINAL]
    twice, gaps, unexpected = [], [], []
    for job_id in ids:
        types = [event.type for event in events[job_id]]
        if types.count("run_started") > 1 or sum(t in TERMINAL_EVENTS for t in types) > 1:
            twice.append(job_id)
        if [event.seq for event in events[job_id]] != list(range(1, len(types) + 1)):
            gaps.append(job_id)
        row = rows.get(job_id)
        kind = driver.tracked[job_id].kind
        if row is not None and row.status != "COMPLETED" and kind != "cancel":
            unexpected.append(f"{job_id} {kind} {row.status}: {row.error}")
    statuses = Counter(rows[i].status for i in ids if i in rows)
    steered = Counter(
        step.rsplit(":", 1)[0] for job in driver.tracked.values() for step in job.steered
    )
    return {
        "submitted": len(ids),
        "finished": sum(statuses[s] for s in TERMINAL),
        "by_status": dict(statuses),
        "by_kind": dict(Counter(f"{job.kind}:{job.status}" for job in driver.tracked.values())),
        "steered": dict(steered),
        "attempts": dict(Counter(int(rows[i].attempts) for i in ids if i in rows)),
        "events_stored": sum(len(events[i]) for i in ids),
        "lost": len(lost),
        "lost_ids": lost[:20],
        "run_twice": len(twice),
        "run_twice_ids": twice[:20],
        "seq_gaps": len(gaps),
        "unexpected": unexpected[:20],
        "unexpected_count": len(unexpected),
    }


def check_streams(database_url: str, read: list[dict[str, Any]]) -> dict[str, Any]:
    """Each stream a client read against the job's stored events: missing, repeated."""
    _, events = _rows(database_url, sorted({str(r["job_id"]) for r in read}))
    missing = repeated = exact = unfinished = disorder = 0
    bad: list[str] = []
    for got in read:
        ids: list[int] = got["ids"]
        if got["terminal"] is None:
            unfinished += 1
            bad.append(f"{got['job_id']} unfinished: {got['error']} {got['statuses']}")
            continue
        expected = list(range(1, len(events[got["job_id"]]) + 1))
        lacking = len(set(expected) - set(ids))
        doubled = len(ids) - len(set(ids))
        missing += lacking
        repeated += doubled
        disorder += sum(1 for a, b in itertools.pairwise(ids) if b <= a)
        exact += ids == expected
        if lacking or doubled:
            stored = events[got["job_id"]]
            which = [f"{e.seq} {e.type}" for e in stored if e.seq not in set(ids)]
            bad.append(
                f"{got['job_id']}: {lacking} missing ({', '.join(which)[:300]}; the stream "
                f"ended at {ids[-1] if ids else 0} {got['terminal']}, the job's last is "
                f"{stored[-1].seq} {stored[-1].type}), {doubled} repeated"
            )
    return {
        "streams": len(read),
        "exact": exact,
        "missing_events": missing,
        "repeated_events": repeated,
        "out_of_order": disorder,
        "unfinished": unfinished,
        "reconnects": sum(int(got["reconnects"]) for got in read),
        "events_read": sum(len(got["ids"]) for got in read),
        "problems": bad[:20],
    }


def _libpq(database_url: str) -> str:
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def _database_bytes(backend: str, database_url: str, data: Path) -> dict[str, int]:
    """The database's bytes as it stands, and (PostgreSQL) its live bytes after
    ``VACUUM FULL`` (the bench's, not gc's: gc leaves PostgreSQL's free space to reuse)."""
    if backend == "sqlite":
        sizes = {}
        for name in ("service", "checkpoints", "pages"):
            sizes[name] = sum(p.stat().st_size for p in data.glob(f"{name}.sqlite3*"))
        return {"database": sizes["service"] + sizes["checkpoints"], **sizes}
    import psycopg

    with psycopg.connect(_libpq(database_url), autocommit=True) as conn:
        on_disk = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        conn.execute("VACUUM FULL")
        live = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    assert on_disk is not None and live is not None
    return {"database": int(on_disk[0]), "database_after_vacuum_full": int(live[0])}


def _gc(env: dict[str, str], **extra: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", "gc"],
        env={**env, **extra},
        capture_output=True,
        text=True,
        check=False,
    )
    return (done.stdout + done.stderr).strip().splitlines()


def sizes_and_gc(
    backend: str, database_url: str, folder: Path, env: dict[str, str], finished: int
) -> dict[str, Any]:
    """Bytes per finished job before gc, after gc (compaction: the jobs just ended) and
    after gc with ``retain_jobs_days`` near 0 (every job forgotten)."""
    data = folder / "data" if backend == "sqlite" else folder / "w0" / "data"
    env = {**env, "DEEPRESEARCH_DATA_DIR": str(data)}
    before = _database_bytes(backend, database_url, data)
    compacted_lines = _gc(env)
    compacted = _database_bytes(backend, database_url, data)
    forgot_lines = _gc(env, DEEPRESEARCH_RETAIN_JOBS_DAYS="0.000001")
    forgot = _database_bytes(backend, database_url, data)

    def per_job(sizes: dict[str, int]) -> dict[str, float]:
        return {f"{k}_kb_per_job": round(v / 1024 / max(finished, 1), 1) for k, v in sizes.items()}

    return {
        "before": {**before, **per_job(before)},
        "after_gc": {**compacted, **per_job(compacted), "gc": compacted_lines},
        "after_gc_forget": {**forgot, **per_job(forgot), "gc": forgot_lines},
    }
