"""A chart of a report's verified numbers (``core.charts.Chart``) drawn as a PNG with
matplotlib, at build time: no JavaScript, no request from the page that shows it.

The drawing is reproducible: matplotlib's object API on its Agg canvas (no pyplot, no
global figure state shared between threads), the fonts bundled with matplotlib, a fixed
size and resolution, and no metadata in the PNG (no "Software" line, no date), so a run and
its replay give the same bytes. Text is drawn as written: a dollar sign is escaped so
matplotlib never reads a label as mathematics.
"""

from __future__ import annotations

import io
import threading
from functools import lru_cache

import matplotlib.style
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from deepresearch.core.charts import Chart

#: the image's size in inches and its resolution: 960 × 480 pixels
SIZE = (8.0, 4.0)
DPI = 120
#: the PNG's width and height in pixels (the figure is not cropped when saved)
PIXELS = (round(SIZE[0] * DPI), round(SIZE[1] * DPI))
BAR = "#3b6ea8"
#: matplotlib's style settings are process-wide: one chart is drawn at a time (the
#: service exports reports from several threads)
_DRAWING = threading.Lock()
#: what matplotlib would write into the PNG otherwise
_NO_METADATA: dict[str, str | None] = {"Software": None}


def _plain(text: str) -> str:
    """``text`` as matplotlib draws it literally (no mathtext)."""
    return text.replace("$", r"\$")


@lru_cache(maxsize=16)
def chart_png(chart: Chart, numbers: tuple[int, ...]) -> bytes:
    """``chart`` as PNG bytes: a bar a point, each bar marked with the citation number
    of its quote (``numbers``, one a point)."""
    # matplotlib's defaults and its bundled font: a matplotlibrc on the machine changes nothing
    style = rc_context({"font.family": "DejaVu Sans", "font.size": 10.0})
    with _DRAWING, matplotlib.style.context("default"), style:
        return _draw(chart, numbers)


def _draw(chart: Chart, numbers: tuple[int, ...]) -> bytes:
    figure = Figure(figsize=SIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    positions = list(range(len(chart.points)))
    values = [point.value for point in chart.points]
    bars = axes.bar(positions, values, color=BAR, width=0.6)
    axes.set_xticks(positions, [_plain(point.label) for point in chart.points])
    marks = [_plain(f"{point.text} [{n}]") for point, n in zip(chart.points, numbers, strict=True)]
    axes.bar_label(bars, labels=marks, padding=2, fontsize=8)
    axes.set_title(_plain(chart.title), fontsize=11)
    if chart.unit:
        axes.set_ylabel(_plain(chart.unit))
    axes.margins(y=0.15)
    axes.spines[["top", "right"]].set_visible(False)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata=_NO_METADATA)
    return buffer.getvalue()
