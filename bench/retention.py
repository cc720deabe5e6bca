"""retention: bytes of storage per finished run before and after ``deepresearch gc``.

``N`` runs of the CLI (``deepresearch run --model none``, the offline web over the
HotpotQA documents of ``../shared/data``) into one fresh data folder, one after another,
as the issue's "17 small no-model jobs" grew ``checkpoints.sqlite3``; then ``deepresearch
gc`` (compaction of the finished runs' checkpoints to their last, stale pages, VACUUM).
Prints the checkpoint file's size and the whole data folder's SQLite files, per run,
before and after.

``--service``: the same number of jobs through a real worker pool on a SQLite service
database (``ScriptedChatModel(research_script())`` as every model, the offline web in the
process), then the retention pass twice: now (compaction; the jobs ended just now) and as
if ``retain_jobs_days`` had passed (the jobs forgotten), with the bytes per job each time.

    python -m bench.retention [--runs 8] [--service]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from deepresearch.testing.corpora import hotpotqa_documents, hotpotqa_questions
from deepresearch.testing.corpus import save_corpus
from deepresearch.testing.web import offline_web_process

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _cli(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEEPRESEARCH_DATA_DIR": str(data)}
    return subprocess.run(  # noqa: S603 (our own command)
        [sys.executable, "-m", "deepresearch.cli.app", *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )


def _files(data: Path) -> str:
    """Each SQLite file's size (with its WAL), for the record."""
    sizes: dict[str, int] = {}
    for path in data.glob("*.sqlite3*"):
        name = path.name.split(".sqlite3")[0]
        sizes[name] = sizes.get(name, 0) + path.stat().st_size
    return ", ".join(f"{name} {size / 1e6:.2f} MB" for name, size in sorted(sizes.items()))


def _sizes(data: Path) -> tuple[int, int]:
    """(checkpoints.sqlite3 with its WAL, every SQLite file of the folder)."""
    checkpoints = sum(
        p.stat().st_size for p in data.glob("checkpoints.sqlite3*") if p.suffix != ".lock"
    )
    everything = sum(p.stat().st_size for p in data.glob("*.sqlite3*"))
    return checkpoints, everything


async def _service(runs: int) -> list[tuple[str, int, int]]:
    """(stage, checkpoints bytes, all SQLite bytes) of ``runs`` service jobs."""
    from deepresearch.compose.gc import collect, vacuum
    from deepresearch.service.app.jobs import Runtime, worker_pool
    from deepresearch.service.db import open_database
    from deepresearch.service.jobs import request_hash
    from deepresearch.service.notify import Notifier
    from deepresearch.service.store import JobStore, Limits
    from deepresearch.settings import load_settings
    from deepresearch.settings_values import ROLES
    from deepresearch.testing.research_script import research_script
    from deepresearch.testing.scripted import ScriptedChatModel
    from deepresearch.testing.web import OfflineWeb

    questions = [item.question for item in hotpotqa_questions(SHARED_DATA)][:runs]
    with tempfile.TemporaryDirectory() as tmp, OfflineWeb(hotpotqa_documents(SHARED_DATA)) as web:
        data = Path(tmp) / "data"
        settings = load_settings(
            search="searxng", searxng_url=web.base_url, data_dir=data, depth="quick",
            allow_hosts=[web.base_url.removeprefix("http://")], min_domains=1,
            fetch_min_interval_s=0.0, max_concurrent_jobs=2, gc_every_s=0,
        )  # fmt: skip
        engine = open_database(settings)
        store = JobStore(engine)
        model = ScriptedChatModel(research_script())
        pool = worker_pool(store, settings, Notifier(), Runtime(models=dict.fromkeys(ROLES, model)))
        limits = Limits(window_s=900, per_window=runs, ttl_s=3600)
        ids = [
            store.submit(
                owner="bench", question=question, recipe="research", options={},
                request_hash=request_hash(question, "research", {}), idempotency_key=None,
                max_active_runs=runs, limits=limits,
            ).job.id
            for question in questions
        ]  # fmt: skip
        await pool.start()
        while any(job.status not in ("COMPLETED", "FAILED") for job in map(store.get, ids) if job):  # noqa: ASYNC110 (a poll of the store)
            await asyncio.sleep(0.5)
        await pool.stop()
        print("finished:", _files(data))
        sizes = [("finished", *_sizes(data))]
        await collect(settings, jobs=store)
        vacuum(settings)
        sizes.append(("compacted", *_sizes(data)))
        print("compacted:", _files(data))
        await collect(settings, jobs=store, now=datetime.now(UTC) + timedelta(days=31))
        vacuum(settings)
        sizes.append(("jobs forgotten", *_sizes(data)))
        print("jobs forgotten:", _files(data))
        engine.dispose()
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--service", action="store_true")
    args = parser.parse_args()
    runs = args.runs
    if args.service:
        for stage, checkpoints, everything in asyncio.run(_service(runs)):
            print(
                f"{stage}: checkpoints {checkpoints / runs / 1e3:.0f} kB a job; "
                f"all SQLite files {everything / runs / 1e3:.0f} kB a job"
            )
        return
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.json"
        save_corpus(list(hotpotqa_documents(SHARED_DATA)), corpus)
        data = Path(tmp) / "data"
        questions = [item.question for item in hotpotqa_questions(SHARED_DATA)][:runs]
        with offline_web_process(corpus) as web:
            host = web.removeprefix("http://")
            for number, question in enumerate(questions):
                _cli(
                    "run", question, "--model", "none", "--search", "searxng",
                    "--searxng-url", web, "--allow-host", host, "--run-id", f"bench-{number}",
                    "--out", str(Path(tmp) / f"{number}.md"), data=data,
                )  # fmt: skip
        before = _sizes(data)
        shown = _cli("gc", data=data)
        after = _sizes(data)
    print(shown.stdout.strip())
    print(f"runs: {len(questions)}")
    for label, (checkpoints, everything) in (("before gc", before), ("after gc", after)):
        print(
            f"{label}: checkpoints {checkpoints / 1e6:.2f} MB "
            f"({checkpoints / len(questions) / 1e3:.0f} kB a run); all SQLite files "
            f"{everything / 1e6:.2f} MB ({everything / len(questions) / 1e3:.0f} kB a run)"
        )


if __name__ == "__main__":
    main()
