"""Charts from verified numbers: the (label, value, unit) points a table or timeline
section's verified quotes state, and whether they are worth a chart. Pure, no model.

Only numbers parsed from the text of a verified (PASS) quote become points: a row's cells
(which a model may have written) only say *which* of its quote's numbers the row is about;
a number that is in a cell but not in the quote is never drawn. Each point keeps the id of
the quote it comes from, so a chart's caption and the JSON can cite it.

A point's label is a year the quote states (a timeline's date), else the row's first cell
when the quote has it word for word; its value is the first quantity of the quote that a
cell of the row repeats (else the quote's first quantity), never the label's year. A
quantity is a number with its unit: a percentage, an amount (a currency sign, a scale word
such as "million") or a count with the noun after it ("324 metres"). A bare four-digit
year is a date, not a quantity.

A section is charted (``section_chart``) when it is a table, timeline or comparison and at
least ``MIN_POINTS`` of its points, under distinct labels, share one unit (the unit most
points have; on a tie the first met).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from deepresearch.core.text import STOPWORDS
from deepresearch.models import Evidence, Report, Section, TableRow

#: points of one unit a chart needs at least (fewer say nothing a table does not)
MIN_POINTS = 3
#: points one chart shows at most (a table's rows, in order)
MAX_POINTS = 12
#: layouts a chart may be drawn for (a table, a timeline, a comparison)
CHARTED_LAYOUTS = frozenset({"table", "timeline", "comparison"})

_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_QUANTITY = re.compile(
    r"(?:(?P<cur>[$€£¥])\s?)?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>%|percent\b|per cent\b|thousand\b|million\b|billion\b|trillion\b|bn\b))?"
    r"(?:\s+(?P<noun>[A-Za-z][A-Za-z-]{2,}))?"
)
_SCALES = {"percent": "%", "per cent": "%", "bn": "billion"}


@dataclass(frozen=True)
class Quantity:
    """A number a quote states: its value, its unit, its words as written and its digits."""

    value: float
    unit: str
    text: str
    number: str


@dataclass(frozen=True)
class ChartPoint:
    """One point of a chart: its label, value and unit, the quantity as the quote writes
    it, and the id of the verified quote it comes from."""

    label: str
    value: float
    unit: str
    text: str
    evidence_id: str


@dataclass(frozen=True)
class Chart:
    """A section's chart: its title (the section's heading), its unit and its points."""

    title: str
    unit: str
    points: tuple[ChartPoint, ...]

    @property
    def evidence_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(point.evidence_id for point in self.points))


def quantities(text: str) -> list[Quantity]:
    """The quantities ``text`` states, in order (bare years left out)."""
    out = []
    for match in _QUANTITY.finditer(text):
        before = text[match.start() - 1] if match.start() > 0 else " "
        if before.isalnum() or before in ".,":
            continue  # the tail of a longer token ("v3.12", "A380")
        number = match["num"]
        scale = (match["scale"] or "").lower()
        scale = _SCALES.get(scale, scale)
        noun = (match["noun"] or "").lower()
        if not match["cur"] and not scale:
            if _YEAR.fullmatch(number):
                continue  # a date, not an amount
            counted = bool(noun) and noun not in STOPWORDS
            unit = noun if counted else ""
            end = match.end("noun") if counted else match.end("num")
        else:
            unit = " ".join(part for part in (match["cur"] or "", scale) if part)
            end = match.end("scale") if scale else match.end("num")
        written = text[match.start() : end].strip()
        out.append(Quantity(float(number.replace(",", "")), unit, written, number))
    return out


def row_point(row: TableRow, evidence: Mapping[str, Evidence]) -> ChartPoint | None:
    """The point a table row's verified quotes state, or None (no label or no quantity
    in a quote it cites)."""
    first = row.cells[0] if row.cells else ""
    others = " ".join(row.cells[1:])
    for eid in row.citations:
        item = evidence.get(eid)
        if item is None or not item.verified:
            continue
        quote = item.quote
        label = _label(quote, first)
        if label is None:
            continue
        found = [q for q in quantities(quote) if q.number not in label]
        if not found:
            continue
        picked = next((q for q in found if q.number in others), found[0])
        return ChartPoint(label, picked.value, picked.unit, picked.text, eid)
    return None


def _label(quote: str, first_cell: str) -> str | None:
    """A year the quote states (the one in the first cell, when it has one), else the
    first cell when the quote has it word for word."""
    years = _YEAR.findall(quote)
    wanted = _YEAR.search(first_cell)
    if wanted and wanted[0] in years:
        return wanted[0]
    cell = " ".join(first_cell.split())
    if cell and cell.lower() in " ".join(quote.split()).lower() and not cell.isdigit():
        return cell
    return years[0] if years else None


def section_chart(section: Section, evidence: Mapping[str, Evidence]) -> Chart | None:
    """The chart of ``section``'s verified numbers, or None when it is not a table,
    timeline or comparison, or fewer than ``MIN_POINTS`` points share a unit."""
    if section.layout not in CHARTED_LAYOUTS or section.table is None:
        return None
    points = [p for row in section.table.rows if (p := row_point(row, evidence)) is not None]
    if not points:
        return None
    unit = Counter(p.unit for p in points).most_common(1)[0][0]
    kept: dict[str, ChartPoint] = {}
    for point in points:
        if point.unit == unit:
            kept.setdefault(point.label, point)  # one point a label: the first row's
    if len(kept) < MIN_POINTS:
        return None
    chosen = list(kept.values())[:MAX_POINTS]
    if all(_YEAR.fullmatch(p.label) for p in chosen):
        chosen.sort(key=lambda p: p.label)  # years read left to right
    return Chart(" ".join(section.heading.split()), unit, tuple(chosen))


def chartable_evidence(report: Report) -> dict[str, Evidence]:
    """The report's verified quotes whose source is in its numbered sources (what a
    chart's point may cite), by id."""
    listed = {ref.id for ref in report.sources}
    return {e.id: e for e in report.evidence if e.verified and e.source_id in listed}


def report_charts(report: Report) -> list[Chart]:
    """The charts of ``report``'s sections, in order."""
    evidence = chartable_evidence(report)
    return [c for s in report.sections if (c := section_chart(s, evidence)) is not None]
