"""Table rows that may be quoted (issue 26): a row of a page's table of yearly numbers.

Extraction writes a page's table as pipe rows, one a paragraph (``| Year | Revenue |``,
``|---|---|``, ``| 2019 | $1.2 billion |``). Such rows are layout, not prose, and are
never part of a prose passage (``core.passages``). One kind of table is evidence all the
same: a table of numbers by period, whose every row states one number for one date, the
way a sentence would ("In 2019 revenue was $1.2 billion"). Its rows are quotable, each on
its own, as the exact row text extraction stored, so a chart drawn from them cites each
point's row, verified verbatim like every quote.

A table qualifies when its header (the first row, followed by a separator row of dashes)
names a period column (year, date, period, quarter, month, season, fiscal year, FY) and
another column holds numbers. A row of it is quotable when its period cell holds a digit
and another cell a number. Any other table (a feature matrix, a list of names, a table
without a header) stays layout, as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from deepresearch.models import Evidence, Source

#: a line that is a row of cells between pipes
_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)
#: the row under a header: cells of dashes, with colons for alignment
_SEPARATOR = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")
#: a header cell that names a period
_PERIOD = re.compile(r"\b(?:year|years|date|period|quarter|month|season|fiscal|fy)\b", re.I)
_NUMBER = re.compile(r"\d")


def quotable_rows(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``text``'s quotable table rows, in order:
    ``text[start:end]`` is the row as stored, pipes included, without surrounding
    whitespace."""
    spans: list[tuple[int, int]] = []
    for table in _tables(text):
        spans.extend(_rows_of(text, table))
    return spans


def _tables(text: str) -> list[list[tuple[int, int]]]:
    """Runs of consecutive pipe rows (blank lines between them allowed), as line spans."""
    tables: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    for match in _ROW.finditer(text):
        start = match.start() + len(match[0]) - len(match[0].lstrip())
        end = match.start() + len(match[0].rstrip())
        if current and text[current[-1][1] : start].strip():
            tables.append(current)  # prose between: a new table
            current = []
        current.append((start, end))
    if current:
        tables.append(current)
    return tables


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip()[1:-1].split("|")]


def _rows_of(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The quotable rows of one table: none unless its header names a period column and
    another column holds numbers."""
    if len(lines) < 3 or not _SEPARATOR.match(text[lines[1][0] : lines[1][1]]):
        return []
    header = _cells(text[lines[0][0] : lines[0][1]])
    period = next((i for i, cell in enumerate(header) if _PERIOD.search(cell)), None)
    if period is None:
        return []
    out = []
    for start, end in lines[2:]:
        cells = _cells(text[start:end])
        if len(cells) != len(header) or not _NUMBER.search(cells[period]):
            continue
        if any(_NUMBER.search(cell) for i, cell in enumerate(cells) if i != period):
            out.append((start, end))
    return out


def row_header(text: str, start: int) -> str | None:
    """The header row of the quotable table row that starts at ``start`` of ``text``, or
    None when no quotable row starts there. A row alone ("| 2019 | $1.2 billion |") does
    not say what its numbers are: its header is shown and scored with it, never quoted."""
    return _headers(text).get(start)


@lru_cache(maxsize=64)
def _headers(text: str) -> dict[int, str]:
    """Each quotable row's start and its table's header row, remembered: a page's rows
    are read in context one at a time."""
    out: dict[int, str] = {}
    for lines in _tables(text):
        for row_start, _ in _rows_of(text, lines):
            out[row_start] = text[lines[0][0] : lines[0][1]]
    return out


def in_context(text: str, start: int, passage: str) -> str:
    """``passage`` as a reader sees it: a quotable row under its table's header, any
    other passage as it is."""
    if not passage.startswith("|"):
        return passage  # prose: the page is not read again
    header = row_header(text, start)
    return f"{header}\n{passage}" if header else passage


def row_context(source: Source, evidence: Evidence) -> str | None:
    """What a table row's quote means: its page's title and its table's header, or None
    when ``evidence`` is not a quotable row of ``source``."""
    if not evidence.quote.startswith("|"):
        return None
    header = row_header(source.text, evidence.start)
    return f"{source.title}\n{header}" if header else None


def read_in_context(
    evidence: Mapping[str, Evidence], sources: Mapping[str, Source]
) -> dict[str, Evidence]:
    """``evidence`` as a judge reads it: a table row's quote under its page's title and its
    table's header (a row alone does not say what its numbers are); every other quote as
    it is. For checking only: a report quotes and cites the row alone."""
    out = dict(evidence)
    for key, item in evidence.items():
        source = sources.get(item.source_id)
        context = row_context(source, item) if source is not None else None
        if context:
            out[key] = item.model_copy(update={"quote": f"{context}\n{item.quote}"})
    return out
