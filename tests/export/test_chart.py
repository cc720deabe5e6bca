"""A chart's PNG (issue 26, item 2) is reproducible: the same bytes in another process, no
metadata (no "Software" line, no date); dollar signs in its text (two in one label, which
matplotlib would otherwise read as mathematics) are drawn as written."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

from deepresearch.core.charts import Chart, ChartPoint
from deepresearch.export.chart import chart_png

ROOT = Path(__file__).resolve().parents[2]
CHART = Chart(
    "Revenue from $1 to $4 billion",
    "$ billion",
    tuple(
        ChartPoint(str(2019 + n), 1.2 + n, "$ billion", f"${1.2 + n:.1f} billion", f"e{n}")
        for n in range(4)
    ),
)
#: the same chart drawn in a fresh process (run from the repository, so ``tests`` imports)
DRAW = (
    "import sys; from tests.export.test_chart import CHART; "
    "from deepresearch.export.chart import chart_png; "
    "sys.stdout.buffer.write(chart_png(CHART, (1, 2, 3, 4)))"
)


def _chunks(png: bytes) -> list[bytes]:
    """The PNG's chunk types, in order."""
    kinds, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kinds.append(png[at + 4 : at + 8])
        at += 12 + length
    return kinds


def test_a_chart_is_the_same_png_in_another_process_without_metadata() -> None:
    chart_png.cache_clear()
    here = chart_png(CHART, (1, 2, 3, 4))
    there = subprocess.run(
        [sys.executable, "-c", DRAW], check=True, capture_output=True, cwd=ROOT
    ).stdout
    assert here == there
    assert here.startswith(b"\x89PNG\r\n\x1a\n")
    kinds = _chunks(here)
    assert b"tIME" not in kinds and b"tEXt" not in kinds and b"iTXt" not in kinds
    assert struct.unpack(">II", here[16:24]) == (960, 480)
