"""The benchmark harness runs end to end with tiny parameters and writes its JSON.

Benchmarks never run in ``make test``; this only checks that ``python -m bench.run``
works: every benchmark runs, the JSON has the documented shape, the figures are positive.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.common import DEFAULT_DATA_DIR
from bench.critical_path import CallInterval, critical_path
from bench.run import BENCHMARKS, main

TINY = [
    "--questions", "1",
    "--latency-s", "0",
    "--per-token-s", "0",
    "--depths", "quick",
    "--quotes", "6",
    "--pages", "2",
    "--no-warmup",
    "--ranking-questions", "2",
]  # fmt: skip
POSITIVE = {
    "end_to_end": [
        "quick.wall_s",
        "quick.model_calls",
        "quick.sources_fetched",
        "quick.input_tokens",
        "quick.output_tokens",
        "quick.no_model.wall_s",
    ],
    "quote_verification": ["verify_quote_per_s", "naive_per_s", "speed_ratio", "agreement"],
    "extraction": ["pages_per_s", "mb_per_s", "mean_f1"],
    "ranking": ["candidates_per_question"],
}


def test_harness_writes_every_benchmark(tmp_path: Path) -> None:
    if not DEFAULT_DATA_DIR.is_dir():
        pytest.skip(f"shared data folder not found at {DEFAULT_DATA_DIR}")
    out = tmp_path / "results" / "latest.json"
    assert main([*TINY, "--out", str(out)]) == 0
    payload = json.loads(out.read_text())
    assert set(payload) == {"machine", "date", "git_revision", "benchmarks"}
    machine = payload["machine"]
    assert {"cpu_count", "cpu_model", "memory_gb", "python", "platform"} <= set(machine)
    assert machine["cpu_count"] >= 1
    assert payload["git_revision"]
    assert set(payload["benchmarks"]) == set(BENCHMARKS)
    for name, bench in payload["benchmarks"].items():
        assert set(bench) == {"figures", "params", "notes"}
        assert bench["notes"]
        assert bench["params"]["harness_s"] >= 0
        for figure in bench["figures"].values():
            assert set(figure) == {"value", "unit"} and figure["unit"]
            assert isinstance(figure["value"], int | float)
        for key in POSITIVE[name]:
            assert bench["figures"][key]["value"] > 0, f"{name}.{key} is not positive"


def test_only_runs_the_named_benchmark(tmp_path: Path) -> None:
    if not DEFAULT_DATA_DIR.is_dir():
        pytest.skip(f"shared data folder not found at {DEFAULT_DATA_DIR}")
    out = tmp_path / "extraction.json"
    assert main(["--only", "extraction", "--pages", "1", "--out", str(out)]) == 0
    assert set(json.loads(out.read_text())["benchmarks"]) == {"extraction"}


def test_missing_data_is_an_error_not_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "none.json"
    code = main(["--only", "extraction", "--data", str(tmp_path / "absent"), "--out", str(out)])
    assert code == 2
    assert not out.exists()


def test_critical_path_is_the_heaviest_sequential_chain() -> None:
    # a ─ b (parallel with c, d) ─ e; c and d overlap each other
    calls = [
        CallInterval(0.0, 1.0, 1.0, "a"),
        CallInterval(1.0, 2.0, 1.0, "b"),
        CallInterval(1.0, 4.0, 3.0, "c"),
        CallInterval(2.5, 3.5, 1.0, "d"),
        CallInterval(4.0, 5.0, 1.0, "e"),
    ]
    path = critical_path(calls)
    assert path.stages == ["a", "c", "e"]
    assert path.ideal_s == 5.0
    assert critical_path([]).calls == ()
