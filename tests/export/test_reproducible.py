"""Every format drawn from a report's document gives the same bytes whenever it is made
(a run and its replay are seconds or years apart): nothing reads the clock, and the zip
containers (DOCX, ODT) date their entries by the report, not by when they were written."""

from __future__ import annotations

import io
import time
import zipfile
from datetime import UTC, datetime

import pytest

from deepresearch.export import BINARY_FORMATS, DRAWN_FORMATS, export_report
from deepresearch.export.archive import fixed_dates

from ..core.test_render import make_report
from .test_pdf import UNICODE_FONTS


def made_at(monkeypatch: pytest.MonkeyPatch, year: int, fmt: str) -> bytes:
    """``fmt`` of the same report, made while the clock says ``year``."""
    now = datetime(year, 6, 1, 12, 0, 1, tzinfo=UTC).timestamp()
    real_localtime = time.localtime
    with monkeypatch.context() as patch:
        patch.setattr(time, "time", lambda: now)
        patch.setattr(time, "localtime", lambda secs=None: real_localtime(now))
        return export_report(make_report(), fmt, fonts=UNICODE_FONTS)


@pytest.mark.parametrize("fmt", DRAWN_FORMATS)
def test_the_same_report_gives_the_same_bytes_whenever_it_is_made(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert made_at(monkeypatch, 2001, fmt) == made_at(monkeypatch, 2031, fmt)


@pytest.mark.parametrize("fmt", [f for f in BINARY_FORMATS if f != "pdf"])
def test_zip_entries_are_dated_by_the_report(fmt: str) -> None:
    report = make_report()  # created 2025-01-02 03:04:05 UTC
    with zipfile.ZipFile(io.BytesIO(export_report(report, fmt))) as archive:
        dates = {info.date_time for info in archive.infolist()}
    assert dates == {(2025, 1, 2, 3, 4, 4)}  # a zip date's precision is two seconds


def test_fixed_dates_keeps_entries_and_clamps_to_the_zip_epoch() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        stored = zipfile.ZipInfo("mimetype", (2020, 1, 1, 0, 0, 0))
        archive.writestr(stored, b"application/x-test")
        archive.writestr("a/b.xml", b"<x/>", compress_type=zipfile.ZIP_DEFLATED)
    fixed = fixed_dates(buffer.getvalue(), datetime(1970, 1, 1, tzinfo=UTC))
    with zipfile.ZipFile(io.BytesIO(fixed)) as archive:
        infos = archive.infolist()
        assert [i.filename for i in infos] == ["mimetype", "a/b.xml"]
        assert [i.compress_type for i in infos] == [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        assert archive.read("a/b.xml") == b"<x/>"
