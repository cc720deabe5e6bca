"""The service_load benchmark runs with its quick configuration, and its exactly-once
check of SSE deliveries counts what it should. No timing is asserted."""

from __future__ import annotations

from dataclasses import replace

import pytest
from bench.common import DEFAULT_DATA_DIR, Options
from bench.service_load import LoadConfig, StreamLog, delivery, run


@pytest.mark.slow
def test_quick_run_measures_jobs_api_sse_and_memory() -> None:
    if not DEFAULT_DATA_DIR.is_dir():
        pytest.skip(f"shared data folder not found at {DEFAULT_DATA_DIR}")
    options = replace(Options(), latency_s=0.0, per_token_s=0.0, service_quick=True)
    result = run(options)
    figures = {name: figure.value for name, figure in result.figures.items()}
    units = {name: figure.unit for name, figure in result.figures.items()}
    quick = LoadConfig.quick()
    assert result.params["quick"] is True and result.params["levels"] == [1]
    # every job completed, and the load generator got answers to everything it asked
    assert figures["c1.jobs"] == figures["c1.completed"] == quick.jobs_at(1) == 2
    assert figures["c1.api_errors"] == 0 and figures["sse.api_errors"] == 0
    assert figures["c1.api_requests"] >= 4  # at least one round per thread
    for name in ("c1.submit_p50_ms", "c1.status_p95_ms", "c1.run_s", "c1.jobs_per_min"):
        assert figures[name] > 0, name
    assert figures["c1.slowdown"] == 1.0
    assert units["c1.rss_per_job_mb"] == "MiB/job" and figures["c1.rss_idle_mb"] > 0
    assert units["c1.service_cpu_cores"] == "cores"
    # every SSE client, live and replaying, got every event exactly once, in order
    assert figures["sse.clients"] == quick.sse_clients
    for prefix in ("sse.", "sse.replay."):
        assert figures[prefix + "clients_exact"] == quick.sse_clients, prefix
        assert figures[prefix + "duplicates"] == figures[prefix + "gaps"] == 0, prefix
        assert figures[prefix + "client_errors"] == 0, prefix
    assert figures["sse.events_per_job"] > 0 and figures["sse.events_per_s"] > 0


def _log(job: str, ids: list[int], *, terminal: bool = True) -> StreamLog:
    return StreamLog(
        job, connected=1.0, ended=2.0, ids=ids, terminal="run_completed" if terminal else None
    )


def test_delivery_counts_duplicates_gaps_and_disorder() -> None:
    logs = [
        _log("a", [1, 2, 3, 4]),  # exact
        _log("a", [1, 2, 2, 3, 4]),  # a duplicate
        _log("a", [1, 3, 4]),  # a gap
        _log("a", [2, 1, 3, 4]),  # out of order
        _log("b", [1, 2], terminal=False),  # ended before the terminal event: b has no end
    ]
    seen = delivery(logs)
    assert seen.clients == 5 and seen.exact == 1
    assert seen.duplicates == 1
    assert seen.gaps == 1
    assert seen.out_of_order == 2  # 2 after 2, and 1 after 2
    assert seen.events == 4 + 5 + 3 + 4 + 2
    assert seen.events_per_s == seen.events  # one second from first connect to last end
