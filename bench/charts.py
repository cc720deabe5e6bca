"""charts: what a chart of verified numbers costs a report (issue 26, item 2).

A report with a timeline of eight yearly amounts, each row citing its verified quote, is
built into its document and rendered to HTML, PDF and DOCX, with its chart and without (the
same rows in a prose section's table, which is never charted). Figures: matplotlib's import
in a fresh process (paid once, on the first chart), one chart's drawing (median of
``--startup-runs``, the drawing cache cleared each time), each format's build time (median,
the chart drawn afresh for each: the cache cleared) and size, with and without the chart.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial

from bench.common import BenchResult, Options
from deepresearch.core.charts import report_charts
from deepresearch.export import export_report
from deepresearch.export.chart import chart_png
from deepresearch.export.report_render import to_html
from deepresearch.models import (
    Evidence,
    Report,
    Section,
    SourceRef,
    Table,
    TableRow,
)
from deepresearch.models.evidence import Verification

NOTES = (
    "A report of one timeline section of 8 yearly amounts (each row citing its verified "
    "quote), rendered with its chart and without (the same table in a prose section: not "
    "charted). import_s: 'import deepresearch.export.chart' (matplotlib) in a fresh "
    "process; draw_s: one chart's PNG; <format>_s: report to bytes, the chart drawn afresh; "
    "<format>_bytes: the file's size; *_plain: without the chart. Medians of --startup-runs."
)
YEARS = range(2015, 2023)


def report(*, charted: bool) -> Report:
    """The benchmark's report: its timeline charted or, as a prose section, not."""
    evidence = []
    rows = []
    for n, year in enumerate(YEARS):
        quote = f"In {year} Acme Robotics revenue was ${1 + n * 0.4:.1f} billion, a record."
        evidence.append(
            Evidence(
                id=f"e{n}",
                sub_question_id="q1",
                claim=quote,
                quote=quote,
                source_id="s1",
                source_url="https://example.org/acme",
                start=0,
                end=len(quote),
                verification=Verification(status="PASS", method="exact", score=1.0),
            )
        )
        rows.append(TableRow(cells=[str(year), quote], citations=[f"e{n}"]))
    section = Section(
        heading="Timeline",
        layout="timeline" if charted else "prose",
        table=Table(columns=["Date", "Event"], rows=rows),
    )
    source = SourceRef(
        id="s1", number=1, url="https://example.org/acme", title="Acme", domain="example.org"
    )
    return Report(
        run_id="bench-charts",
        question="How did Acme Robotics revenue grow?",
        title="Acme Robotics revenue",
        kind="synthesized",
        sections=[section],
        sources=[source],
        evidence=evidence,
    )


def _median(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        chart_png.cache_clear()
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run(options: Options) -> BenchResult:
    result = BenchResult(notes=NOTES)
    runs = options.startup_runs
    result.params.update({"runs": runs, "points": len(YEARS)})
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import deepresearch.export.chart"], check=True)
    result.add("import_s", time.perf_counter() - started, "s")
    charted, plain = report(charted=True), report(charted=False)
    (chart,) = report_charts(charted)
    numbers = tuple(1 for _ in chart.points)
    result.add("draw_s", _median(lambda: chart_png(chart, numbers), runs), "s")
    for name, item in (("", charted), ("_plain", plain)):
        result.add(f"html_s{name}", _median(partial(to_html, item), runs), "s")
        result.add(f"html_bytes{name}", len(to_html(item).encode()), "bytes", digits=0)
        for fmt in ("pdf", "docx"):
            build = _median(partial(export_report, item, fmt), runs)
            result.add(f"{fmt}_s{name}", build, "s")
            result.add(f"{fmt}_bytes{name}", len(export_report(item, fmt)), "bytes", digits=0)
    return result
