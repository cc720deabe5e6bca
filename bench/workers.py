"""workers: jobs per minute with 1, 2 and 4 worker processes on one database.

The deployment of docs/operations.md on one machine: one API process
(``create_app`` with ``run_workers`` off, as ``serve --no-workers``) and N worker processes
(``WorkerPool`` on the shared database, as ``deepresearch worker``), each in a child
process with a data folder of its own, plus the offline web in another child. Every
process's models are ``ScriptedChatModel(research_script())`` sleeping ``latency_s +
per_token_s`` x output tokens per call (the CLI cannot load a scripted model, so the
children build the pool and the app themselves, with the code the commands run). The
same HotpotQA questions are submitted at once through the API at every level; a fresh
database (SQLite) and fresh caches per level, so no level reuses another's pages or
model replies.

``python -m bench.workers --child api|worker CONFIG_JSON`` starts those children; it is
not meant to be run by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from bench.common import BenchResult, Options, mean, require
from bench.service_load import (
    POSTGRES_ENV,
    LeanScriptedModel,
    child,
    log_problems,
    submit,
    wait_terminal,
)
from deepresearch.settings_values import ROLES, Role

MODULE = "bench.workers"
CONCURRENCY = 3  # jobs per worker process (max_concurrent_jobs' default)
DEPTH = "quick"

NOTES = (
    "One API process (create_app, run_workers off, uvicorn on loopback) and N worker "
    "processes (WorkerPool, max_concurrent_jobs = 3 each), every one a child process with "
    "its own data folder (page and model-reply caches), on one database: a fresh SQLite "
    "file per level, or with DEEPRESEARCH_BENCH_POSTGRES_URL set the PostgreSQL database it "
    "names (backend in params). The offline web in another child; all share the machine's "
    "cores. Every role is ScriptedChatModel(research_script()) sleeping latency_s + "
    "per_token_s x output tokens per call. wN.*: N worker processes; the same jobs "
    "(the first `jobs` HotpotQA questions, depth quick) submitted at once after every "
    "process is ready. jobs_per_min: completed jobs x 60 / (last finished_at - first "
    "created_at), server timestamps; run_s: mean started_at to finished_at; queue_s: mean "
    "created_at to started_at; speedup: jobs_per_min / w1's (or the first level's). "
    "Each worker's first jobs include its imports and the graph's first build (no warm-up)."
)


def _settings(config: dict[str, Any], **extra: Any) -> Any:
    from deepresearch.settings import load_settings

    web_url = str(config["web_url"])
    Path(config["data_dir"]).mkdir(parents=True, exist_ok=True)
    return load_settings(
        search="searxng",
        searxng_url=web_url,
        allow_hosts=[web_url.removeprefix("http://")],
        min_domains=1,
        fetch_min_interval_s=0.0,  # one loopback host for the whole web (see end_to_end)
        data_dir=Path(config["data_dir"]),
        database_url=config["database_url"],
        depth=DEPTH,
        # one caller submits every job: let it have as many as it likes
        active_runs_per_key=1_000_000,
        submissions_per_window=1_000_000,
        submission_window_s=1.0,
        **extra,
    )


def _models(config: dict[str, Any]) -> dict[Role, BaseChatModel | None]:
    from deepresearch.testing.research_script import research_script

    model = LeanScriptedModel(research_script())
    model.latency_s = float(config["latency_s"])
    model.per_token_s = float(config["per_token_s"])
    return dict.fromkeys(ROLES, model)


def _serve_api(config: dict[str, Any]) -> None:
    from deepresearch.service.app import create_app
    from deepresearch.service.app.jobs import Runtime
    from deepresearch.service.server import BackgroundServer

    settings = _settings(config, run_workers=False)
    app = create_app(settings, runtime=Runtime(models=_models(config)))
    with BackgroundServer(app) as server:
        print(json.dumps({"url": server.url, "pid": os.getpid()}), flush=True)
        sys.stdin.read()


def _serve_worker(config: dict[str, Any]) -> None:
    from deepresearch.service.app.jobs import Runtime, worker_pool
    from deepresearch.service.db import open_database
    from deepresearch.service.notify import Notifier
    from deepresearch.service.store import JobStore

    settings = _settings(config, max_concurrent_jobs=CONCURRENCY)
    engine = open_database(settings)

    async def work() -> None:
        runtime = Runtime(models=_models(config))
        pool = worker_pool(JobStore(engine), settings, Notifier(), runtime)
        await pool.start()
        print(json.dumps({"url": "", "pid": os.getpid(), "worker": pool.worker_id}), flush=True)
        await asyncio.to_thread(sys.stdin.read)  # until the benchmark closes our stdin
        await pool.stop()

    try:
        asyncio.run(work())
    finally:
        engine.dispose()


def _ts(value: Any) -> float:
    return datetime.fromisoformat(str(value)).timestamp()


def measure(
    web_url: str, workers: int, questions: Sequence[str], options: Options, db: str | None
) -> dict[str, float]:
    """One level: the API and ``workers`` worker processes, every question as a job."""
    with tempfile.TemporaryDirectory(prefix=f"bench-workers-{workers}-") as name:
        folder = Path(name)
        database = db or f"sqlite:///{folder / 'jobs.sqlite3'}"

        def config(part: str) -> dict[str, Any]:
            return {
                "web_url": web_url,
                "data_dir": str(folder / part),
                "database_url": database,
                "latency_s": options.latency_s,
                "per_token_s": options.per_token_s,
            }

        logs = [folder / "api.log"] + [folder / f"worker{i}.log" for i in range(workers)]
        with ExitStack() as stack:
            api = stack.enter_context(child("api", config("api"), logs[0], module=MODULE))
            for i in range(workers):  # started one after another: each migrates at start
                stack.enter_context(child("worker", config(f"w{i}"), logs[i + 1], module=MODULE))
            with httpx.Client(base_url=api.url, timeout=60) as client:
                ids = [submit(client, question, DEPTH) for question in questions]
                views = list(wait_terminal(client, ids, timeout_s=1800).values())
        problems = [line for log in logs for line in log_problems(log)]
    done = [view for view in views if view["status"] == "COMPLETED"]
    if len(done) != len(views) or problems:
        raise RuntimeError(
            f"{workers} workers: {len(done)} of {len(views)} jobs completed; {problems[:5]}"
        )
    first = min(_ts(view["created_at"]) for view in views)
    last = max(_ts(view["finished_at"]) for view in views)
    return {
        "jobs_per_min": len(done) * 60 / max(last - first, 1e-9),
        "wall_s": last - first,
        "run_s": mean([_ts(v["finished_at"]) - _ts(v["started_at"]) for v in done]),
        "queue_s": mean([_ts(v["started_at"]) - _ts(v["created_at"]) for v in done]),
    }


def run(options: Options) -> BenchResult:
    """Every worker-process level on one API, the same jobs each time."""
    from deepresearch.testing.corpora import hotpotqa_questions

    require(options.data_dir / "qa" / "hotpotqa")
    questions = [item.question for item in hotpotqa_questions(options.data_dir)]
    questions = questions[: options.worker_jobs]
    db = os.environ.get(POSTGRES_ENV) or None
    result = BenchResult(notes=NOTES)
    result.params = {
        "latency_s": options.latency_s,
        "per_token_s": options.per_token_s,
        "depth": DEPTH,
        "worker_processes": list(options.worker_processes),
        "concurrency_per_worker": CONCURRENCY,
        "jobs": len(questions),
        "backend": "postgresql" if db else "sqlite",
    }
    with tempfile.TemporaryDirectory(prefix="bench-workers-web-") as name:
        web_config = {"data_dir": str(options.data_dir)}
        with child("web", web_config, Path(name) / "web.log") as web:
            base = 0.0
            for workers in options.worker_processes:
                started = time.monotonic()
                level = measure(web.url, workers, questions, options, db)
                base = base or level["jobs_per_min"]
                prefix = f"w{workers}."
                result.add(prefix + "jobs_per_min", level["jobs_per_min"], "jobs/min", digits=2)
                result.add(prefix + "speedup", level["jobs_per_min"] / base, "x", digits=2)
                result.add(prefix + "wall_s", level["wall_s"], "s", digits=2)
                result.add(prefix + "run_s", level["run_s"], "s", digits=2)
                result.add(prefix + "queue_s", level["queue_s"], "s", digits=2)
                result.add(prefix + "harness_s", time.monotonic() - started, "s", digits=1)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.workers")
    parser.add_argument("--child", choices=("api", "worker"), required=True)
    parser.add_argument("config", help="JSON")
    args = parser.parse_args(argv)
    config: dict[str, Any] = json.loads(args.config)
    if args.child == "api":
        _serve_api(config)
    else:
        _serve_worker(config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
