"""Quality gate for the deterministic support checker (``core.support``) on WiCE.

349 real Wikipedia claims (shared data ``claims/wice/dev.jsonl``), each with the sentences
of the page it cites and a gold label. Every claim is checked against those sentences,
without and with the offline embedder, and the figures are compared with
``baseline.json``:

- ``supported_precision`` / ``supported_recall``: the checker's "supported" against the
  gold label "supported" (partially supported claims count as not supported);
- ``not_supported_recall``: gold "not_supported" claims the checker calls "unsupported";
- ``supported_kept``: gold "supported" claims the checker does *not* call "unsupported"
  (a strict audit removes those);
- ``pointer_accuracy``: on gold "supported" claims, how often ``best_passage`` is in one of
  the gold supporting sentence sets.

No figure may fall below its baseline. The baseline only rises:
``python -m tests.eval.test_wice_gate --update`` (from the repository root) measures and
raises every figure that improved, never lowers one.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from deepresearch.core.support import Embedder, check_support
from deepresearch.embeddings import load_default_embedder, wordllama_available

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
WICE = Path("claims") / "wice" / "dev.jsonl"
BASELINE = Path(__file__).with_name("baseline.json")
TOLERANCE = 1e-9
TIME_LIMIT_S = 60.0
VARIANTS = ("lexical", "wordllama")


def load_claims(data_dir: Path) -> list[dict[str, Any]]:
    with (data_dir / WICE).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def measure(claims: Iterable[dict[str, Any]], embedder: Embedder | None) -> dict[str, float]:
    """The gate's figures for these claims (see the module docstring)."""
    true_pos = false_pos = gold_supported = not_supported = caught = kept = pointed = 0
    for claim in claims:
        verdict = check_support(claim["claim"], claim["evidence"], embedder=embedder)
        gold = claim["label"]
        if verdict.verdict == "supported":
            true_pos += gold == "supported"
            false_pos += gold != "supported"
        if gold == "not_supported":
            not_supported += 1
            caught += verdict.verdict == "unsupported"
        if gold == "supported":
            gold_supported += 1
            kept += verdict.verdict != "unsupported"
            pointed += any(verdict.best_passage in group for group in claim["supporting_sentences"])
    return {
        "supported_precision": true_pos / max(true_pos + false_pos, 1),
        "supported_recall": true_pos / max(gold_supported, 1),
        "not_supported_recall": caught / max(not_supported, 1),
        "supported_kept": kept / max(gold_supported, 1),
        "pointer_accuracy": pointed / max(gold_supported, 1),
    }


def embedder_for(variant: str) -> Embedder | None:
    return load_default_embedder() if variant == "wordllama" else None


def read_baseline() -> dict[str, dict[str, float]]:
    data: dict[str, dict[str, float]] = json.loads(BASELINE.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("variant", VARIANTS)
def test_wice_gate(variant: str, shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not (shared_data / WICE).is_file():
        pytest.skip(f"WiCE claims not found at {shared_data / WICE}")
    if variant == "wordllama" and not wordllama_available():
        pytest.skip("wordllama is not installed")
    claims = load_claims(shared_data)
    started = time.perf_counter()
    measured = measure(claims, embedder_for(variant))
    elapsed = time.perf_counter() - started
    floor = read_baseline()[variant]
    with capsys.disabled():
        figures = ", ".join(f"{name} {value:.4f}" for name, value in measured.items())
        print(f"\nWiCE {variant} ({len(claims)} claims, {elapsed:.1f} s): {figures}")
    assert len(claims) == 349
    below = {
        name: (round(measured[name], 6), floor[name])
        for name in floor
        if measured[name] < floor[name] - TOLERANCE
    }
    assert not below, f"WiCE {variant}: below baseline (measured, baseline): {below}"
    assert elapsed < TIME_LIMIT_S


def _floor(value: float) -> float:
    """Rounded down to 6 decimals, so the stored baseline never exceeds the measurement."""
    return math.floor(value * 1e6) / 1e6


def update(data_dir: Path = SHARED_DATA) -> dict[str, dict[str, float]]:
    """Measure every variant and raise the baseline where a figure improved."""
    claims = load_claims(data_dir)
    baseline = read_baseline() if BASELINE.is_file() else {}
    for variant in VARIANTS:
        if variant == "wordllama" and not wordllama_available():
            print(f"{variant}: skipped (not installed)")
            continue
        measured = measure(claims, embedder_for(variant))
        old = baseline.get(variant, {})
        new = {name: max(_floor(value), old.get(name, 0.0)) for name, value in measured.items()}
        for name, value in measured.items():
            print(f"{variant} {name}: measured {value:.6f}, baseline {new[name]:.6f}")
        baseline[variant] = new
    BASELINE.write_text(json.dumps(baseline, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return baseline


if __name__ == "__main__":
    if "--update" not in sys.argv[1:]:
        sys.exit("usage: python -m tests.eval.test_wice_gate --update")
    update()
